//! A glTF 2.0 file as the character loaders read it: the parsed document, its buffers (the
//! `.glb` binary chunk, embedded `data:` URIs or external `.bin` files beside a `.gltf`) and the
//! raw JSON (for extras and extensions the parser drops), with bounds-checked accessor readers.
//! Every error names the file.

use std::path::Path;

use gltf::accessor::{DataType, Dimensions};

use super::load::RigError;

/// The largest character file (and the largest external buffer) the loader reads, bytes. A
/// character with 30,000 vertices and a dozen clips is a few megabytes; a file this large is
/// almost surely not a character (or carries textures the tuner does not use), and reading it
/// whole would stall the window.
pub const MAX_FILE_BYTES: u64 = 128 * 1024 * 1024;

/// A parsed glTF file and its buffers.
pub(crate) struct Source {
    /// Names the file in error messages.
    pub path: String,
    pub doc: gltf::Document,
    /// One byte vector per glTF buffer, in the document's order.
    pub buffers: Vec<Vec<u8>>,
    /// The JSON document as plain JSON (extras, VRM extensions).
    pub json: serde_json::Value,
    /// The folder external buffers and images are read from (`None`: they are not read).
    pub base: Option<std::path::PathBuf>,
}

impl Source {
    /// Reads a `.glb` or `.gltf` file; external buffers are looked up beside it.
    pub fn open(path: &Path) -> Result<Self, RigError> {
        let name = path.display().to_string();
        let io = |source| RigError::Io {
            path: name.clone(),
            source,
        };
        let size = std::fs::metadata(path).map_err(io)?.len();
        if size > MAX_FILE_BYTES {
            return Err(too_large(&name, size));
        }
        let bytes = std::fs::read(path).map_err(io)?;
        Self::parse(&bytes, &name, path.parent())
    }

    /// Parses `.glb` or `.gltf` bytes; `name` names them in messages and `base` is the folder
    /// external buffers are read from (`None`: external buffers are an error).
    pub fn parse(bytes: &[u8], name: &str, base: Option<&Path>) -> Result<Self, RigError> {
        let format = |reason: String| RigError::Format {
            path: name.to_string(),
            reason,
        };
        if bytes.len() as u64 > MAX_FILE_BYTES {
            return Err(too_large(name, bytes.len() as u64));
        }
        let is_glb = bytes.starts_with(b"glTF");
        let json_bytes: Vec<u8> = if is_glb {
            check_container(bytes).map_err(format)?;
            let glb = gltf::Glb::from_slice(bytes).map_err(|e| format(e.to_string()))?;
            glb.json.into_owned()
        } else if bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{') {
            bytes.to_vec()
        } else {
            return Err(format(
                "neither a glTF binary (.glb, starts with 'glTF') nor glTF JSON (.gltf)".into(),
            ));
        };
        let gltf =
            gltf::Gltf::from_slice_without_validation(bytes).map_err(|e| format(e.to_string()))?;
        // Our own check first (it names the item the loaders would trip on), then the
        // crate's validation for everything else.
        super::check::document(gltf.document.as_json()).map_err(&format)?;
        validate(gltf.document.as_json()).map_err(&format)?;
        let json: serde_json::Value =
            serde_json::from_slice(&json_bytes).map_err(|e| format(e.to_string()))?;
        let mut source = Source {
            path: name.to_string(),
            doc: gltf.document,
            buffers: Vec::new(),
            json,
            base: base.map(Path::to_path_buf),
        };
        source.buffers = source.read_buffers(gltf.blob, base)?;
        Ok(source)
    }

    /// Every buffer's bytes: the binary chunk, a `data:` URI or a file beside the document.
    fn read_buffers(
        &self,
        blob: Option<Vec<u8>>,
        base: Option<&Path>,
    ) -> Result<Vec<Vec<u8>>, RigError> {
        let mut blob = blob;
        let mut out = Vec::new();
        for buffer in self.doc.buffers() {
            let what = match buffer.source() {
                gltf::buffer::Source::Bin => "the binary chunk".to_string(),
                gltf::buffer::Source::Uri(uri) if uri.starts_with("data:") => {
                    format!("buffer {} (embedded data URI)", buffer.index())
                }
                gltf::buffer::Source::Uri(uri) => {
                    let file = base.map(|b| b.join(uri));
                    if let Some(size) = file.as_ref().and_then(|f| std::fs::metadata(f).ok()) {
                        if size.len() > MAX_FILE_BYTES {
                            return Err(too_large(&format!("{} ({uri})", self.path), size.len()));
                        }
                    }
                    format!("external buffer '{uri}'")
                }
            };
            let data = gltf::buffer::Data::from_source_and_blob(buffer.source(), base, &mut blob)
                .map_err(|e| self.err(format!("cannot read {what}: {e}")))?;
            if data.len() < buffer.length() {
                return Err(self.err(format!(
                    "{what} has {} bytes, the file says {}",
                    data.len(),
                    buffer.length()
                )));
            }
            out.push(data.0);
        }
        Ok(out)
    }

    /// A content error (a valid glTF that is not a usable character).
    pub fn err(&self, reason: impl Into<String>) -> RigError {
        RigError::Content {
            path: self.path.clone(),
            reason: reason.into(),
        }
    }

    /// Raw bytes of each element of an accessor, bounds-checked against its buffer.
    fn elements(
        &self,
        acc: &gltf::Accessor,
        dims: Dimensions,
        what: &str,
    ) -> Result<(Vec<&[u8]>, DataType), RigError> {
        if acc.dimensions() != dims {
            return Err(self.err(format!(
                "{what}: expected {dims:?} elements, found {:?}",
                acc.dimensions()
            )));
        }
        if acc.sparse().is_some() {
            return Err(self.err(format!("{what}: sparse accessors are not supported")));
        }
        let view = acc
            .view()
            .ok_or_else(|| self.err(format!("{what}: accessor has no buffer view")))?;
        let blob: &[u8] = self
            .buffers
            .get(view.buffer().index())
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        let comp = acc.data_type().size();
        let elem = comp * dims.multiplicity();
        let stride = view.stride().unwrap_or(elem).max(elem);
        let count = acc.count();
        let start = view.offset().checked_add(acc.offset());
        let view_end = view.offset().checked_add(view.length());
        let need_end = start.and_then(|s| {
            if count == 0 {
                Some(s)
            } else {
                stride
                    .checked_mul(count - 1)?
                    .checked_add(elem)?
                    .checked_add(s)
            }
        });
        match (start, view_end, need_end) {
            (Some(s), Some(ve), Some(ne)) if ne <= ve && ve <= blob.len() => {
                let out = (0..count)
                    .map(|i| &blob[s + i * stride..s + i * stride + elem])
                    .collect();
                Ok((out, acc.data_type()))
            }
            _ => Err(self.err(format!("{what}: data runs past the end of its buffer"))),
        }
    }

    /// 32-bit float elements, flattened; a non-finite value is an error naming `what`.
    pub fn read_f32(
        &self,
        acc: &gltf::Accessor,
        dims: Dimensions,
        what: &str,
    ) -> Result<Vec<f32>, RigError> {
        let (elems, ty) = self.elements(acc, dims, what)?;
        if ty != DataType::F32 {
            return Err(self.err(format!("{what}: expected 32-bit floats, found {ty:?}")));
        }
        let mut out = Vec::with_capacity(elems.len() * dims.multiplicity());
        for e in elems {
            for c in e.chunks_exact(4) {
                let v = f32::from_le_bytes([c[0], c[1], c[2], c[3]]);
                if !v.is_finite() {
                    return Err(self.err(format!("{what}: non-finite value (NaN or infinity)")));
                }
                out.push(v);
            }
        }
        Ok(out)
    }

    /// Floats, or unsigned integers normalised to 0..1 (the forms glTF allows for weights
    /// and rotation keys).
    pub fn read_unit_or_f32(
        &self,
        acc: &gltf::Accessor,
        dims: Dimensions,
        what: &str,
    ) -> Result<Vec<f32>, RigError> {
        match acc.data_type() {
            DataType::F32 => self.read_f32(acc, dims, what),
            DataType::U8 => Ok(self
                .read_uint(acc, dims, what)?
                .into_iter()
                .map(|v| v as f32 / 255.0)
                .collect()),
            DataType::U16 => Ok(self
                .read_uint(acc, dims, what)?
                .into_iter()
                .map(|v| v as f32 / 65535.0)
                .collect()),
            ty => Err(self.err(format!(
                "{what}: expected floats or normalised unsigned integers, found {ty:?}"
            ))),
        }
    }

    /// Unsigned integer elements (8, 16 or 32 bits), flattened.
    pub fn read_uint(
        &self,
        acc: &gltf::Accessor,
        dims: Dimensions,
        what: &str,
    ) -> Result<Vec<u32>, RigError> {
        let (elems, ty) = self.elements(acc, dims, what)?;
        let mut out = Vec::with_capacity(elems.len() * dims.multiplicity());
        for e in elems {
            match ty {
                DataType::U8 => out.extend(e.iter().map(|&b| b as u32)),
                DataType::U16 => out.extend(
                    e.chunks_exact(2)
                        .map(|c| u16::from_le_bytes([c[0], c[1]]) as u32),
                ),
                DataType::U32 => out.extend(
                    e.chunks_exact(4)
                        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])),
                ),
                _ => {
                    return Err(
                        self.err(format!("{what}: expected unsigned integers, found {ty:?}"))
                    )
                }
            }
        }
        Ok(out)
    }

    /// The `asset.generator` string.
    pub fn generator(&self) -> Option<&str> {
        self.json.pointer("/asset/generator")?.as_str()
    }
}

/// The `gltf` crate's own validation of the document, as its first error.
fn validate(root: &gltf::json::Root) -> Result<(), String> {
    use gltf::json::validation::Validate;
    let mut first = None;
    root.validate(root, gltf::json::Path::new, &mut |path, error| {
        if first.is_none() {
            first = Some(format!("{}: {error}", path()));
        }
    });
    first.map_or(Ok(()), Err)
}

fn too_large(name: &str, size: u64) -> RigError {
    RigError::Format {
        path: name.to_string(),
        reason: format!(
            "{} MB is more than the {} MB a character file may have (a character with 30,000 \
             vertices and a dozen clips is a few MB; export it without textures)",
            size / 1_000_000,
            MAX_FILE_BYTES / 1_000_000
        ),
    }
}

/// Checks the GLB container before handing it to the parser (some malformed headers would
/// otherwise trip an arithmetic overflow inside it).
fn check_container(bytes: &[u8]) -> Result<(), String> {
    let u32_at = |o: usize| -> Option<u32> {
        let b = bytes.get(o..o + 4)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    if bytes.len() < 20 {
        return Err("too short for a glTF binary header".into());
    }
    if u32_at(4) != Some(2) {
        return Err("only glTF version 2 is supported".into());
    }
    let total = u32_at(8).unwrap_or(0) as usize;
    if total < 20 || total > bytes.len() {
        return Err(format!(
            "header says {} bytes, file has {}",
            total,
            bytes.len()
        ));
    }
    let mut offset = 12usize;
    while offset < total {
        let len = u32_at(offset).ok_or("truncated chunk header")? as usize;
        let end = offset
            .checked_add(8)
            .and_then(|o| o.checked_add(len))
            .filter(|&e| e <= total)
            .ok_or("a chunk runs past the end of the file")?;
        offset = end;
    }
    Ok(())
}
