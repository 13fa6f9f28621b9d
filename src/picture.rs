//! Pictures as the crate keeps them ([`Rgba`]) and as files: the one PNG reader and the one
//! PNG writer, shared by the tuner's screenshots, `render`, `compare` and `regress`.

use std::io::BufReader;
use std::path::{Path, PathBuf};

use crate::files::{write_atomic, WriteError};

/// A picture: 8-bit RGBA, rows top to bottom.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rgba {
    /// Pixels per row.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// `width * height` pixels, row by row from the top left.
    pub pixels: Vec<[u8; 4]>,
}

/// Why a picture could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum PictureError {
    /// The file could not be opened.
    #[error("cannot open the picture {}: {source}", .path.display())]
    Open {
        /// The file.
        path: PathBuf,
        /// The operating system's reason.
        source: std::io::Error,
    },
    /// The file is not a PNG this reader understands.
    #[error("{} is not a readable PNG: {message}", .path.display())]
    Decode {
        /// The file.
        path: PathBuf,
        /// The decoder's reason.
        message: String,
    },
    /// The picture could not be encoded (a size PNG cannot hold).
    #[error("cannot encode the picture as PNG: {0}")]
    Encode(#[from] png::EncodingError),
    /// The file could not be written.
    #[error(transparent)]
    Write(#[from] WriteError),
}

/// Reads a PNG of any colour type as 8-bit RGBA.
pub fn read_png(path: &Path) -> Result<Rgba, PictureError> {
    let file = std::fs::File::open(path).map_err(|source| PictureError::Open {
        path: path.to_path_buf(),
        source,
    })?;
    let bad = |message: String| PictureError::Decode {
        path: path.to_path_buf(),
        message,
    };
    let mut decoder = png::Decoder::new(BufReader::new(file));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().map_err(|e| bad(e.to_string()))?;
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| bad("the picture is too large".to_string()))?;
    let mut buf = vec![0; size];
    let info = reader
        .next_frame(&mut buf)
        .map_err(|e| bad(e.to_string()))?;
    let (w, h) = (info.width, info.height);
    let channels = info.color_type.samples();
    let pixels = buf[..info.buffer_size()]
        .chunks_exact(channels)
        .take(w as usize * h as usize)
        .map(|c| match *c {
            [g] => [g, g, g, 255],
            [g, a] => [g, g, g, a],
            [r, g, b] => [r, g, b, 255],
            [r, g, b, a, ..] => [r, g, b, a],
            _ => [0, 0, 0, 255],
        })
        .collect();
    Ok(Rgba {
        width: w,
        height: h,
        pixels,
    })
}

/// The PNG bytes of a picture (RGB when every pixel is opaque, else RGBA). The same picture
/// gives the same bytes.
pub fn encode_png(img: &Rgba) -> Result<Vec<u8>, PictureError> {
    let opaque = img.pixels.iter().all(|p| p[3] == 255);
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, img.width, img.height);
    enc.set_color(if opaque {
        png::ColorType::Rgb
    } else {
        png::ColorType::Rgba
    });
    enc.set_depth(png::BitDepth::Eight);
    enc.set_compression(png::Compression::High);
    let mut writer = enc.write_header()?;
    let data: Vec<u8> = if opaque {
        img.pixels.iter().flat_map(|p| [p[0], p[1], p[2]]).collect()
    } else {
        img.pixels.iter().flatten().copied().collect()
    };
    writer.write_image_data(&data)?;
    writer.finish()?;
    Ok(out)
}

/// Writes a picture as PNG, atomically ([`write_atomic`]).
pub fn write_png(path: &Path, img: &Rgba) -> Result<(), PictureError> {
    Ok(write_atomic(path, &encode_png(img)?)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_picture_reads_back_as_written_opaque_or_not() {
        let dir = tempfile::tempdir().unwrap();
        for alpha in [255, 128] {
            let img = Rgba {
                width: 3,
                height: 2,
                pixels: (0..6u8).map(|i| [i * 40, 255 - i, i, alpha]).collect(),
            };
            let path = dir.path().join(format!("a{alpha}.png"));
            write_png(&path, &img).unwrap();
            assert_eq!(read_png(&path).unwrap(), img);
            assert_eq!(encode_png(&img).unwrap(), std::fs::read(&path).unwrap());
        }
    }

    #[test]
    fn a_file_that_is_not_a_png_or_missing_is_named_in_the_error() {
        let dir = tempfile::tempdir().unwrap();
        let text = dir.path().join("notes.png");
        std::fs::write(&text, "hello").unwrap();
        let e = read_png(&text).unwrap_err().to_string();
        assert!(
            e.contains("notes.png") && e.contains("not a readable PNG"),
            "{e}"
        );
        let e = read_png(&dir.path().join("missing.png"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("missing.png"), "{e}");
    }
}
