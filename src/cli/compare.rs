//! `compare`: two pictures, how far apart they are, where, and a diff picture.

use crate::picture::Rgba;
use std::fmt::Write as _;

/// The thresholds of a comparison.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Thresholds {
    /// A pixel differs when one of its channels differs by more than this (0 to 255).
    pub max_pixel_diff: u8,
    /// The pictures match while the share of differing pixels is at most this (0 to 1).
    pub max_diff_share: f64,
}

impl Thresholds {
    pub fn new(max_pixel_diff: u8, max_diff_share: f64) -> Self {
        Self {
            max_pixel_diff,
            max_diff_share,
        }
    }
}

/// A group of neighbouring differing pixels (8 x 8 cells that touch), pixel coordinates from
/// the top left.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cluster {
    pub x0: u32,
    pub y0: u32,
    pub x1: u32,
    pub y1: u32,
    /// Differing pixels in it.
    pub pixels: usize,
}

/// How two pictures of the same size differ.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    pub width: u32,
    pub height: u32,
    /// Largest difference of any channel of any pixel.
    pub max_channel_diff: u8,
    /// Where it is (x, y from the top left).
    pub max_at: (u32, u32),
    /// Pixels with a channel difference over the threshold.
    pub differing: usize,
    /// `differing` / all pixels.
    pub share: f64,
    /// The largest cluster of differing pixels.
    pub cluster: Option<Cluster>,
    pub thresholds: Thresholds,
}

impl Comparison {
    /// True when the pictures match within the thresholds.
    pub fn passes(&self) -> bool {
        self.share <= self.thresholds.max_diff_share
    }

    /// A few lines for people.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "largest channel difference: {} (at x={}, y={})",
            self.max_channel_diff, self.max_at.0, self.max_at.1
        );
        let _ = writeln!(
            s,
            "pixels over {}: {} of {} ({:.4} %, allowed {:.4} %)",
            self.thresholds.max_pixel_diff,
            self.differing,
            self.width as usize * self.height as usize,
            self.share * 100.0,
            self.thresholds.max_diff_share * 100.0
        );
        match self.cluster {
            Some(c) => {
                let _ = writeln!(
                    s,
                    "largest difference cluster: x {}..{}, y {}..{} ({} pixels, centre {}, {})",
                    c.x0,
                    c.x1,
                    c.y0,
                    c.y1,
                    c.pixels,
                    (c.x0 + c.x1) / 2,
                    (c.y0 + c.y1) / 2
                );
            }
            None => {
                let _ = writeln!(s, "largest difference cluster: none");
            }
        }
        let _ = writeln!(s, "{}", if self.passes() { "match" } else { "MISMATCH" });
        s
    }
}

fn channel_diff(a: [u8; 4], b: [u8; 4]) -> u8 {
    (0..4).map(|i| a[i].abs_diff(b[i])).max().unwrap_or(0)
}

/// Compares two pictures. Different sizes are an error.
pub fn compare(expected: &Rgba, actual: &Rgba, t: Thresholds) -> anyhow::Result<Comparison> {
    if (expected.width, expected.height) != (actual.width, actual.height) {
        anyhow::bail!(
            "the pictures have different sizes: expected {}x{}, actual {}x{}",
            expected.width,
            expected.height,
            actual.width,
            actual.height
        );
    }
    let (w, h) = (expected.width, expected.height);
    const CELL: u32 = 8;
    let (cw, ch) = (w.div_ceil(CELL), h.div_ceil(CELL));
    let mut cells = vec![0usize; (cw * ch) as usize];
    let mut max = 0u8;
    let mut max_at = (0, 0);
    let mut differing = 0;
    for (i, (&a, &b)) in expected.pixels.iter().zip(&actual.pixels).enumerate() {
        let d = channel_diff(a, b);
        let (x, y) = (i as u32 % w, i as u32 / w);
        if d > max {
            max = d;
            max_at = (x, y);
        }
        if d > t.max_pixel_diff {
            differing += 1;
            cells[((y / CELL) * cw + x / CELL) as usize] += 1;
        }
    }
    let total = (w as usize * h as usize).max(1);
    Ok(Comparison {
        width: w,
        height: h,
        max_channel_diff: max,
        max_at,
        differing,
        share: differing as f64 / total as f64,
        cluster: largest_cluster(&cells, cw, ch, CELL, w, h),
        thresholds: t,
    })
}

/// The largest group of touching cells (8-neighbourhood) that hold differing pixels.
fn largest_cluster(
    cells: &[usize],
    cw: u32,
    ch: u32,
    cell: u32,
    w: u32,
    h: u32,
) -> Option<Cluster> {
    let mut seen = vec![false; cells.len()];
    let mut best: Option<Cluster> = None;
    let mut stack = Vec::new();
    for start in 0..cells.len() {
        if cells[start] == 0 || seen[start] {
            continue;
        }
        seen[start] = true;
        stack.push(start);
        let mut c = Cluster {
            x0: u32::MAX,
            y0: u32::MAX,
            x1: 0,
            y1: 0,
            pixels: 0,
        };
        while let Some(i) = stack.pop() {
            let (cx, cy) = (i as u32 % cw, i as u32 / cw);
            c.pixels += cells[i];
            c.x0 = c.x0.min(cx * cell);
            c.y0 = c.y0.min(cy * cell);
            c.x1 = c.x1.max(((cx + 1) * cell).min(w) - 1);
            c.y1 = c.y1.max(((cy + 1) * cell).min(h) - 1);
            for dy in -1i64..=1 {
                for dx in -1i64..=1 {
                    let (nx, ny) = (cx as i64 + dx, cy as i64 + dy);
                    if nx < 0 || ny < 0 || nx >= cw as i64 || ny >= ch as i64 {
                        continue;
                    }
                    let j = (ny * cw as i64 + nx) as usize;
                    if cells[j] > 0 && !seen[j] {
                        seen[j] = true;
                        stack.push(j);
                    }
                }
            }
        }
        if best.is_none_or(|b| c.pixels > b.pixels) {
            best = Some(c);
        }
    }
    best
}

/// The diff picture: the expected picture faded to a light grey, pixels over the threshold in
/// red (brighter for larger differences), smaller differences in yellow, and the largest
/// cluster framed in magenta.
pub fn diff_image(expected: &Rgba, actual: &Rgba, c: &Comparison) -> Rgba {
    let t = c.thresholds.max_pixel_diff;
    let mut pixels: Vec<[u8; 4]> = expected
        .pixels
        .iter()
        .zip(&actual.pixels)
        .map(|(&a, &b)| {
            let d = channel_diff(a, b);
            if d > t {
                let k = 150 + (d as u32 * 105 / 255) as u8;
                [k, 0, 0, 255]
            } else if d > 0 {
                [235, 200, 40, 255]
            } else {
                let luma = (a[0] as u32 * 30 + a[1] as u32 * 59 + a[2] as u32 * 11) / 100;
                let f = (160 + luma * 95 / 255) as u8;
                [f, f, f, 255]
            }
        })
        .collect();
    if let Some(cl) = c.cluster {
        let w = c.width as usize;
        let (x0, y0) = (cl.x0.saturating_sub(2), cl.y0.saturating_sub(2));
        let (x1, y1) = ((cl.x1 + 2).min(c.width - 1), (cl.y1 + 2).min(c.height - 1));
        for x in x0..=x1 {
            pixels[y0 as usize * w + x as usize] = [230, 0, 230, 255];
            pixels[y1 as usize * w + x as usize] = [230, 0, 230, 255];
        }
        for y in y0..=y1 {
            pixels[y as usize * w + x0 as usize] = [230, 0, 230, 255];
            pixels[y as usize * w + x1 as usize] = [230, 0, 230, 255];
        }
    }
    Rgba {
        width: c.width,
        height: c.height,
        pixels,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flat(w: u32, h: u32, v: u8) -> Rgba {
        Rgba {
            width: w,
            height: h,
            pixels: vec![[v, v, v, 255]; (w * h) as usize],
        }
    }

    const T: Thresholds = Thresholds {
        max_pixel_diff: 4,
        max_diff_share: 0.01,
    };

    #[test]
    fn equal_pictures_match() {
        let a = flat(20, 10, 100);
        let c = compare(&a, &a, T).unwrap();
        assert!(c.passes());
        assert_eq!((c.max_channel_diff, c.differing, c.cluster), (0, 0, None));
    }

    #[test]
    fn a_changed_patch_is_found_where_it_is() {
        let a = flat(64, 48, 100);
        let mut b = a.clone();
        for y in 30..36 {
            for x in 40..50 {
                b.pixels[y * 64 + x] = [100, 160, 100, 255];
            }
        }
        b.pixels[0] = [102, 100, 100, 255]; // under the threshold
        let c = compare(&a, &b, T).unwrap();
        assert!(!c.passes());
        assert_eq!(c.max_channel_diff, 60);
        assert_eq!(c.differing, 60);
        let cl = c.cluster.unwrap();
        assert_eq!(cl.pixels, 60);
        assert!(
            cl.x0 <= 40 && cl.x1 >= 49 && cl.y0 <= 30 && cl.y1 >= 35,
            "{cl:?}"
        );
        let d = diff_image(&a, &b, &c);
        assert_eq!(d.pixels[32 * 64 + 45][1], 0);
        assert_eq!(d.pixels[0], [235, 200, 40, 255]);
    }

    #[test]
    fn different_sizes_are_an_error() {
        let e = compare(&flat(4, 4, 0), &flat(4, 5, 0), T).unwrap_err();
        assert!(e.to_string().contains("4x4"), "{e}");
    }
}
