//! Pictures as the crate keeps them ([`Rgba`]) and as files: the one PNG reader and the one
//! PNG writer, shared by the tuner's screenshots, `render`, `compare` and `regress`.

use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

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

impl Rgba {
    /// `self` and `right` in one picture, side by side with a `gap` of `gap_colour` between
    /// them; the shorter one is padded below with the gap's colour.
    pub fn beside(&self, right: &Rgba, gap: u32, gap_colour: [u8; 4]) -> Rgba {
        let width = self.width + gap + right.width;
        let height = self.height.max(right.height);
        let mut pixels = vec![gap_colour; (width * height) as usize];
        for (img, x0) in [(self, 0), (right, self.width + gap)] {
            for y in 0..img.height {
                let src = (y * img.width) as usize..((y + 1) * img.width) as usize;
                let at = (y * width + x0) as usize;
                pixels[at..at + img.width as usize].copy_from_slice(&img.pixels[src]);
            }
        }
        Rgba {
            width,
            height,
            pixels,
        }
    }
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
    /// A background PNG writer stopped without saying why (it panicked).
    #[error("the PNG writer thread stopped unexpectedly")]
    WriterLost,
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
    // Fast deflate: a picture encodes in a fraction of the time for somewhat larger files,
    // and the same picture still gives the same bytes.
    enc.set_compression(png::Compression::Fast);
    let mut writer = enc.write_header()?;
    let channels = if opaque { 3 } else { 4 };
    let mut data = vec![0u8; img.pixels.len() * channels];
    for (out, p) in data.chunks_exact_mut(channels).zip(&img.pixels) {
        out.copy_from_slice(&p[..channels]);
    }
    writer.write_image_data(&data)?;
    writer.finish()?;
    Ok(out)
}

/// Writes a picture as PNG, atomically ([`write_atomic`]).
pub fn write_png(path: &Path, img: &Rgba) -> Result<(), PictureError> {
    Ok(write_atomic(path, &encode_png(img)?)?)
}

/// Writes PNGs ([`write_png`]) on background threads, one per core, while the caller draws the
/// next picture. Each file's bytes do not depend on which thread wrote it. [`PngWriter::finish`]
/// waits for every file and returns the first error; after an error, [`PngWriter::write`]
/// refuses more work.
pub struct PngWriter {
    jobs: Option<SyncSender<(PathBuf, Rgba)>>,
    workers: Vec<JoinHandle<Result<(), PictureError>>>,
    failed: Arc<AtomicBool>,
}

impl PngWriter {
    /// Starts the writer threads.
    pub fn new() -> Self {
        let n = std::thread::available_parallelism().map_or(1, |n| n.get());
        // Room for one waiting picture per thread: drawing runs ahead of encoding by that much
        // and no further, so memory stays bounded.
        let (tx, rx) = sync_channel::<(PathBuf, Rgba)>(n);
        let rx = Arc::new(Mutex::new(rx));
        let failed = Arc::new(AtomicBool::new(false));
        let workers = (0..n)
            .map(|_| {
                let (rx, failed) = (rx.clone(), failed.clone());
                std::thread::spawn(move || write_jobs(&rx, &failed))
            })
            .collect();
        Self {
            jobs: Some(tx),
            workers,
            failed,
        }
    }

    /// Queues a picture for `path` (waits while every thread is busy and the queue is full).
    /// Errors when an earlier write failed: call [`PngWriter::finish`] for the reason.
    pub fn write(&self, path: PathBuf, image: Rgba) -> Result<(), PictureError> {
        let sent = match &self.jobs {
            Some(tx) if !self.failed.load(Ordering::Relaxed) => tx.send((path, image)).is_ok(),
            _ => false,
        };
        if sent {
            Ok(())
        } else {
            Err(PictureError::WriterLost)
        }
    }

    /// Waits for every queued picture; the first error, if any.
    pub fn finish(mut self) -> Result<(), PictureError> {
        self.jobs = None;
        let mut first = Ok(());
        for w in self.workers.drain(..) {
            let result = w.join().unwrap_or(Err(PictureError::WriterLost));
            if first.is_ok() {
                first = result;
            }
        }
        first
    }
}

impl Default for PngWriter {
    fn default() -> Self {
        Self::new()
    }
}

/// One writer thread: pictures from the queue until it closes or a write fails.
fn write_jobs(
    jobs: &Mutex<Receiver<(PathBuf, Rgba)>>,
    failed: &AtomicBool,
) -> Result<(), PictureError> {
    loop {
        let job = match jobs.lock() {
            Ok(rx) => rx.recv(),
            Err(_) => return Err(PictureError::WriterLost),
        };
        let Ok((path, image)) = job else {
            return Ok(());
        };
        if let Err(e) = write_png(&path, &image) {
            failed.store(true, Ordering::Relaxed);
            return Err(e);
        }
    }
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
    fn the_background_writer_writes_every_picture_as_the_one_writer_does() {
        let dir = tempfile::tempdir().unwrap();
        let writer = PngWriter::new();
        let pictures: Vec<Rgba> = (0..12u8)
            .map(|k| Rgba {
                width: 16,
                height: 9,
                pixels: (0..144u32)
                    .map(|i| [i as u8, k, (i * 7) as u8, 255])
                    .collect(),
            })
            .collect();
        for (k, img) in pictures.iter().enumerate() {
            writer
                .write(dir.path().join(format!("p{k}.png")), img.clone())
                .unwrap();
        }
        writer.finish().unwrap();
        for (k, img) in pictures.iter().enumerate() {
            let bytes = std::fs::read(dir.path().join(format!("p{k}.png"))).unwrap();
            assert_eq!(bytes, encode_png(img).unwrap(), "picture {k}");
        }
    }

    #[test]
    fn a_failed_background_write_names_the_file_and_stops_the_batch() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("no_such_folder").join("a.png");
        let img = Rgba {
            width: 2,
            height: 2,
            pixels: vec![[1, 2, 3, 255]; 4],
        };
        let writer = PngWriter::new();
        writer.write(missing.clone(), img.clone()).unwrap();
        // The failure reaches the queue at some point; from then on more work is refused.
        let refused = (0..1000).any(|_| {
            std::thread::sleep(std::time::Duration::from_millis(1));
            writer.failed.load(Ordering::Relaxed)
        });
        assert!(refused);
        assert!(writer.write(dir.path().join("b.png"), img).is_err());
        let e = writer.finish().unwrap_err().to_string();
        assert!(e.contains("no_such_folder"), "{e}");
        assert!(!dir.path().join("b.png").exists());
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
