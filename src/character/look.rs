//! How a mesh looked in its file, kept beside the merged mesh the loaders make of it: its
//! triangle primitives (where each one's vertices and indices lie in the merged mesh, and its
//! material), every texture coordinate set, and the file's materials with the textures,
//! samplers and images they use. The tuner draws none of it; the rigged garment
//! (`crate::export::rigged`) writes the garment and the body back out with it, so that they
//! leave as they came.
//!
//! Materials are copied as `gltf-json` reads them: the core material (factors, alpha, the five
//! texture slots with their `texCoord`), not its extensions. An image the file names but that
//! cannot be read (a missing file beside a `.gltf`) drops the textures showing it from the
//! materials, rather than refusing a character the tuner would otherwise play.

use std::path::Path;
use std::sync::Arc;

use gltf::accessor::Dimensions;
use gltf::json;

use super::load::RigError;
use super::source::{Source, MAX_FILE_BYTES};

/// The most texture coordinate sets a primitive may have (`TEXCOORD_0` to `TEXCOORD_7`).
pub const MAX_UV_SETS: usize = 8;

/// One triangle primitive of the file, as it lies in the merged mesh.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LookPart {
    /// Its first vertex and vertex count in the merged mesh.
    pub first_vertex: u32,
    pub vertex_count: u32,
    /// Its first index and index count in the merged mesh's index list (the indices are the
    /// merged mesh's, so they lie in `first_vertex..first_vertex + vertex_count`).
    pub first_index: u32,
    pub index_count: u32,
    /// Its material: an index into [`Materials::materials`].
    pub material: Option<u32>,
}

/// A merged mesh's primitives, texture coordinates and materials as its file had them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MeshLook {
    /// The primitives, in the order they were merged.
    pub parts: Vec<LookPart>,
    /// Per texture coordinate set (`TEXCOORD_0`, `TEXCOORD_1`, ...), one pair per vertex of
    /// the merged mesh; (0, 0) for the vertices of a primitive without that set.
    pub uv_sets: Vec<Vec<[f32; 2]>>,
    /// The file's materials (shared by the body and a garment read from the same file).
    pub materials: Arc<Materials>,
}

/// A file's materials and what they show.
#[derive(Clone, Debug, Default)]
pub struct Materials {
    /// Every material of the file, in its order; a texture slot names an index of `textures`.
    pub materials: Vec<json::Material>,
    /// Every texture; `source` an index of `images`, `sampler` one of `samplers`.
    pub textures: Vec<json::Texture>,
    pub samplers: Vec<json::texture::Sampler>,
    /// Every image with its bytes (`None` where they could not be read).
    pub images: Vec<Option<Image>>,
}

impl PartialEq for Materials {
    /// The same materials, textures and samplers (as JSON: `gltf-json`'s types have no
    /// equality) and the same images.
    fn eq(&self, other: &Self) -> bool {
        let text = |m: &Materials| {
            serde_json::to_string(&(&m.materials, &m.textures, &m.samplers)).unwrap_or_default()
        };
        self.images == other.images && text(self) == text(other)
    }
}

/// An image's encoded bytes (PNG, JPEG, ...) and MIME type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    pub name: Option<String>,
    pub mime_type: String,
    pub bytes: Vec<u8>,
}

impl MeshLook {
    /// Records primitive `prim` of `src`, merged at `first_vertex` (its `vertex_count`
    /// vertices) and `first_index` (its `index_count` indices): its material and texture
    /// coordinate sets. Every set stays one pair per merged vertex.
    pub(crate) fn add_primitive(
        &mut self,
        src: &Source,
        prim: &gltf::Primitive,
        (first_vertex, vertex_count): (usize, usize),
        (first_index, index_count): (usize, usize),
    ) -> Result<(), RigError> {
        let sets = prim
            .attributes()
            .filter_map(|(s, _)| match s {
                gltf::Semantic::TexCoords(k) => Some(k as usize + 1),
                _ => None,
            })
            .max()
            .unwrap_or(0);
        if sets > MAX_UV_SETS {
            return Err(src.err(format!(
                "a primitive has TEXCOORD_{}: texture coordinate sets 0 to {} are read",
                sets - 1,
                MAX_UV_SETS - 1
            )));
        }
        while self.uv_sets.len() < sets {
            self.uv_sets.push(vec![[0.0; 2]; first_vertex]);
        }
        for (k, set) in self.uv_sets.iter_mut().enumerate() {
            set.extend(read_uvs(src, prim, k as u32, vertex_count)?);
        }
        self.parts.push(LookPart {
            first_vertex: first_vertex as u32,
            vertex_count: vertex_count as u32,
            first_index: first_index as u32,
            index_count: index_count as u32,
            material: prim.material().index().map(|m| m as u32),
        });
        Ok(())
    }

    /// One primitive over a whole mesh of `vertices` and `indices`, with these texture
    /// coordinate sets and the first of `materials`' materials (none when it has none).
    pub fn single(
        (vertices, indices): (usize, usize),
        uv_sets: Vec<Vec<[f32; 2]>>,
        materials: Materials,
    ) -> Self {
        MeshLook {
            parts: vec![LookPart {
                first_vertex: 0,
                vertex_count: vertices as u32,
                first_index: 0,
                index_count: indices as u32,
                material: (!materials.materials.is_empty()).then_some(0),
            }],
            uv_sets,
            materials: Arc::new(materials),
        }
    }

    /// Whether the primitives cover a mesh of `vertices` and `indices` one after another
    /// (each its own vertices), with every texture coordinate set and material there: the
    /// look of that mesh, not of another.
    pub fn fits(&self, vertices: usize, indices: usize) -> bool {
        let (mut v, mut i) = (0u64, 0u64);
        for p in &self.parts {
            let material_ok = p
                .material
                .is_none_or(|m| (m as usize) < self.materials.materials.len());
            if p.first_vertex as u64 != v || p.first_index as u64 != i || !material_ok {
                return false;
            }
            v += p.vertex_count as u64;
            i += p.index_count as u64;
        }
        v == vertices as u64
            && i == indices as u64
            && self.uv_sets.iter().all(|s| s.len() == vertices)
    }

    /// The first texture coordinate set, one pair per vertex of a mesh of `vertices`.
    pub fn first_uvs(&self, vertices: usize) -> Vec<[f32; 2]> {
        match self.uv_sets.first() {
            Some(set) => set.clone(),
            None => vec![[0.0; 2]; vertices],
        }
    }
}

/// A primitive's texture coordinate set `set`, (0, 0) for every vertex when it has none.
pub(crate) fn read_uvs(
    src: &Source,
    prim: &gltf::Primitive,
    set: u32,
    n: usize,
) -> Result<Vec<[f32; 2]>, RigError> {
    let Some(acc) = prim.get(&gltf::Semantic::TexCoords(set)) else {
        return Ok(vec![[0.0; 2]; n]);
    };
    let uv = src.read_unit_or_f32(&acc, Dimensions::Vec2, "texture coordinates")?;
    if uv.len() != n * 2 {
        return Err(src.err("mesh attributes have different vertex counts"));
    }
    Ok(uv.chunks_exact(2).map(|c| [c[0], c[1]]).collect())
}

impl Materials {
    /// The materials of `src`, their textures, samplers and images (read from the binary
    /// chunk, a `data:` URI or a file beside a `.gltf`).
    pub(crate) fn read(src: &Source) -> Self {
        let base = src.base.as_deref();
        let root = src.doc.as_json();
        let images: Vec<Option<Image>> = src
            .doc
            .images()
            .map(|image| read_image(src, &image, base))
            .collect();
        let textures: Vec<json::Texture> = root
            .textures
            .iter()
            .map(|t| json::Texture {
                extensions: None,
                ..t.clone()
            })
            .collect();
        let shown = |t: &json::Index<json::Texture>| {
            textures
                .get(t.value())
                .and_then(|t| images.get(t.source.value()))
                .is_some_and(Option::is_some)
        };
        let materials = root
            .materials
            .iter()
            .map(|m| {
                let mut m = json::Material {
                    extensions: None,
                    ..m.clone()
                };
                for_each_texture(&mut m, &mut |index| shown(&index).then_some(index));
                m
            })
            .collect();
        Materials {
            materials,
            textures,
            samplers: root.samplers.clone(),
            images,
        }
    }
}

/// Calls `f` with each texture slot of `m` (base colour, metallic-roughness, normal,
/// occlusion, emissive) and puts back what it returns (`None` empties the slot).
pub fn for_each_texture(
    m: &mut json::Material,
    f: &mut dyn FnMut(json::Index<json::Texture>) -> Option<json::Index<json::Texture>>,
) {
    let pbr = &mut m.pbr_metallic_roughness;
    for info in [
        &mut pbr.base_color_texture,
        &mut pbr.metallic_roughness_texture,
    ] {
        *info = info.take().and_then(|mut i| {
            i.extensions = None;
            f(i.index).map(|index| json::texture::Info { index, ..i })
        });
    }
    m.emissive_texture = m.emissive_texture.take().and_then(|mut i| {
        i.extensions = None;
        f(i.index).map(|index| json::texture::Info { index, ..i })
    });
    m.normal_texture = m.normal_texture.take().and_then(|mut i| {
        i.extensions = None;
        f(i.index).map(|index| json::material::NormalTexture { index, ..i })
    });
    m.occlusion_texture = m.occlusion_texture.take().and_then(|mut i| {
        i.extensions = None;
        f(i.index).map(|index| json::material::OcclusionTexture { index, ..i })
    });
}

/// An image's bytes and MIME type, or `None` when they cannot be read.
fn read_image(src: &Source, image: &gltf::Image, base: Option<&Path>) -> Option<Image> {
    let name = image.name().map(str::to_string);
    match image.source() {
        gltf::image::Source::View { view, mime_type } => {
            let buffer = src.buffers.get(view.buffer().index())?;
            let bytes = buffer.get(view.offset()..view.offset().checked_add(view.length())?)?;
            Some(Image {
                name,
                mime_type: mime_type.to_string(),
                bytes: bytes.to_vec(),
            })
        }
        gltf::image::Source::Uri { uri, mime_type } => {
            let mime_type = mime_type
                .map(str::to_string)
                .or_else(|| uri_mime_type(uri))?;
            if !uri.starts_with("data:") {
                let size = std::fs::metadata(base?.join(uri)).ok()?.len();
                if size > MAX_FILE_BYTES {
                    return None;
                }
            }
            let source = gltf::buffer::Source::Uri(uri);
            let data = gltf::buffer::Data::from_source_and_blob(source, base, &mut None).ok()?;
            Some(Image {
                name,
                mime_type,
                bytes: data.0,
            })
        }
    }
}

/// The MIME type a `data:` URI states or a file name's extension implies (PNG or JPEG, the
/// two glTF 2.0 defines).
fn uri_mime_type(uri: &str) -> Option<String> {
    if let Some(rest) = uri.strip_prefix("data:") {
        let mime = rest.split([';', ',']).next()?;
        return (!mime.is_empty()).then(|| mime.to_string());
    }
    let lower = uri.to_ascii_lowercase();
    if lower.ends_with(".png") {
        Some("image/png".into())
    } else if lower.ends_with(".jpg") || lower.ends_with(".jpeg") {
        Some("image/jpeg".into())
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_image_uri_names_its_mime_type() {
        assert_eq!(
            uri_mime_type("data:image/png;base64,AAAA").as_deref(),
            Some("image/png")
        );
        assert_eq!(
            uri_mime_type("tex/Cloth.JPG").as_deref(),
            Some("image/jpeg")
        );
        assert_eq!(uri_mime_type("cloth.ktx2"), None);
    }
}
