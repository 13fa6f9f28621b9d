//! Procedural fabric looks: textures the program makes itself, so each preset reads as the
//! cloth it is tuned for (tweed woven and matte, down quilted with a soft sheen, veil thin and
//! see-through from both sides).

use crate::preset::{Look, Pattern};

/// How the jacket is shaded: the preset's [`Look`].
pub type FabricLook = Look;

impl Look {
    /// Roughness for the physical material (1 = fully matte).
    pub fn roughness(&self) -> f32 {
        match self.pattern {
            Pattern::Woven => 0.97,
            Pattern::Quilted => 0.42,
            Pattern::Net => 0.6,
        }
    }

    /// How many times the texture repeats across the jacket's UV square.
    pub fn repeat(&self) -> [f32; 2] {
        match self.pattern {
            // About 7 cm per repeat both ways on the jacket (its UVs run 0..4 around ~1.4 m
            // and 0..2 down ~0.66 m): herringbone bands ~1.3 cm wide and a ~7 cm windowpane
            // overcheck, which is what reads as tweed from a few metres.
            Pattern::Woven => [2.5, 2.4],
            Pattern::Quilted => [1.0, 1.0],
            Pattern::Net => [24.0, 14.0],
        }
    }

    /// The texture: `size` x `size` RGBA8, sRGB, rows top to bottom. Each pattern is drawn
    /// in its shipped colour and scaled channel by channel to the look's colour (so the
    /// shipped looks are drawn exactly as designed); sheerness sets the alpha.
    pub fn texture(&self, size: usize) -> Vec<[u8; 4]> {
        let reference = match self.pattern {
            Pattern::Woven => Look::TWEED.colour.0,
            Pattern::Quilted => Look::DOWN.colour.0,
            Pattern::Net => Look::VEIL.colour.0,
        };
        let tint: [f32; 3] =
            std::array::from_fn(|i| self.colour.0[i] as f32 / reference[i].max(1) as f32);
        let sheer = self.sheerness.clamp(0.0, 1.0);
        let mut px = vec![[0u8; 4]; size * size];
        for y in 0..size {
            for x in 0..size {
                let (c, alpha) = match self.pattern {
                    Pattern::Woven => (tweed(x, y), opaque_alpha(sheer)),
                    Pattern::Quilted => (down(x, y, size), opaque_alpha(sheer)),
                    Pattern::Net => veil(x, y, sheer),
                };
                let c = [c[0] * tint[0], c[1] * tint[1], c[2] * tint[2]];
                px[y * size + x] = to_px(c, alpha);
            }
        }
        px
    }

    /// A representative colour of the lit fabric (sRGB), for tests that look for the jacket in
    /// a screenshot.
    pub fn base_color(&self) -> [u8; 3] {
        self.colour.0
    }
}

/// The alpha of a woven or quilted fabric: opaque unless sheer.
fn opaque_alpha(sheerness: f32) -> u8 {
    (255.0 * (1.0 - sheerness)).round() as u8
}

/// A small deterministic hash in 0..1.
fn hash(x: usize, y: usize, salt: u32) -> f32 {
    let mut h = (x as u32).wrapping_mul(0x9E37_79B1) ^ (y as u32).wrapping_mul(0x85EB_CA77) ^ salt;
    h ^= h >> 15;
    h = h.wrapping_mul(0x2C1B_3C6D);
    h ^= h >> 12;
    h = h.wrapping_mul(0x297A_2D39);
    h ^= h >> 15;
    (h & 0xFFFF) as f32 / 65535.0
}

fn mix(a: [f32; 3], b: [f32; 3], t: f32) -> [f32; 3] {
    [
        a[0] + (b[0] - a[0]) * t,
        a[1] + (b[1] - a[1]) * t,
        a[2] + (b[2] - a[2]) * t,
    ]
}

fn to_px(c: [f32; 3], alpha: u8) -> [u8; 4] {
    [
        c[0].clamp(0.0, 255.0) as u8,
        c[1].clamp(0.0, 255.0) as u8,
        c[2].clamp(0.0, 255.0) as u8,
        alpha,
    ]
}

/// Herringbone twill: 4/4 diagonal floats that change direction every 24 texels, a dark
/// warp and a lighter weft, heathered (mottled) yarn with coloured flecks as in Harris tweed,
/// and a faint rust overcheck so the weave still reads from a few metres away.
fn tweed(x: usize, y: usize) -> [f32; 3] {
    let band = (x / 24) % 2;
    let diag = if band == 0 {
        x + y
    } else {
        x + 256 - (y % 256)
    };
    let warp_up = (diag / 4) % 2 == 0;
    let warp = [88.0, 62.0, 42.0];
    let weft = [172.0, 130.0, 88.0];
    let mut c = if warp_up { warp } else { weft };
    // Thread shading: each float is darker at its ends.
    let along = (diag % 4) as f32 / 3.0;
    let shade = 1.0 - 0.22 * (along - 0.5).abs() * 2.0;
    c = [c[0] * shade, c[1] * shade, c[2] * shade];
    // Heather: low-frequency mottling of the yarn.
    let heather = (hash(x / 16, y / 16, 5) + hash(x / 5, y / 7, 11)) * 0.14 - 0.14;
    c = [
        c[0] * (1.0 + heather),
        c[1] * (1.0 + heather * 0.8),
        c[2] * (1.0 + heather * 0.6),
    ];
    let f = hash(x, y, 99);
    if f > 0.994 {
        c = [160.0, 64.0, 40.0]; // rust fleck
    } else if f > 0.988 {
        c = [86.0, 104.0, 72.0]; // moss fleck
    }
    // The herringbone's break line.
    if x % 24 == 0 {
        c = mix(c, [64.0, 46.0, 32.0], 0.6);
    }
    // Overcheck: a thin rust line each way every 128 texels.
    if x % 128 < 2 || y % 128 < 2 {
        c = mix(c, [150.0, 70.0, 44.0], 0.55);
    }
    c
}

/// Quilted down: horizontal channels, each puffed (lighter in the middle) and stitched at the
/// seam, over a fine ripstop grid.
fn down(x: usize, y: usize, size: usize) -> [f32; 3] {
    let channels = 9.0;
    let v = y as f32 / size as f32 * channels;
    let t = v.fract();
    let puff = (t * std::f32::consts::PI).sin().powf(0.6);
    let base = [52.0, 72.0, 110.0];
    let mut c = [
        base[0] * (0.55 + 0.6 * puff),
        base[1] * (0.55 + 0.6 * puff),
        base[2] * (0.55 + 0.6 * puff),
    ];
    // Stitch line with stitches.
    if !(0.03..=0.97).contains(&t) && (x / 3) % 2 == 0 {
        c = [base[0] * 0.35, base[1] * 0.35, base[2] * 0.35];
    }
    if x % 8 == 0 || y % 8 == 0 {
        c = [c[0] * 0.93, c[1] * 0.93, c[2] * 0.93];
    }
    c
}

/// Tulle: a fine hexagon-ish net of dark threads, mostly holes. At the shipped veil's
/// sheerness (0.7) the threads' alpha is 215 and the holes' 70; at 0 the net is opaque, at 1
/// the holes are clear.
fn veil(x: usize, y: usize, sheerness: f32) -> ([f32; 3], u8) {
    let cell = 8;
    let row = y / cell;
    let xs = if row % 2 == 0 { x } else { x + cell / 2 };
    let on_thread = xs % cell == 0 || y % cell == 0 || (xs + y) % cell == 0;
    let c = [28.0, 28.0, 34.0];
    let s = sheerness / Look::VEIL.sheerness;
    let alpha =
        |clear_at_shipped: f32| (255.0 - clear_at_shipped * s).clamp(0.0, 255.0).round() as u8;
    if on_thread {
        (c, alpha(40.0))
    } else {
        (c, alpha(185.0))
    }
}

/// The ground texture: a light neutral floor with a line every texture repeat (1 m) and a
/// fainter one every 25 cm.
pub fn ground_texture(size: usize) -> Vec<[u8; 4]> {
    let mut px = vec![[0u8; 4]; size * size];
    for y in 0..size {
        for x in 0..size {
            let major = x < 2 || y < 2;
            let minor = x % (size / 4) == 0 || y % (size / 4) == 0;
            let n = hash(x / 4, y / 4, 3) * 6.0;
            let c = if major {
                [96.0, 100.0, 104.0]
            } else if minor {
                [128.0, 131.0, 134.0]
            } else {
                [146.0 + n, 148.0 + n, 150.0 + n]
            };
            px[y * size + x] = to_px(c, 255);
        }
    }
    px
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_colour_tints_the_pattern_and_sheerness_sets_its_alpha() {
        let red = Look {
            colour: crate::preset::Colour([200, 30, 30]),
            ..Look::TWEED
        };
        let avg =
            |t: &[[u8; 4]], i: usize| t.iter().map(|p| p[i] as u32).sum::<u32>() / t.len() as u32;
        let t = red.texture(64);
        assert!(avg(&t, 0) > 3 * avg(&t, 1), "a red tweed should read red");
        let sheer = Look {
            sheerness: 0.5,
            ..Look::DOWN
        };
        assert!(sheer.texture(16).iter().all(|p| p[3] == 128));
        let clear = Look {
            sheerness: 1.0,
            ..Look::VEIL
        };
        assert!(
            clear.texture(32).iter().any(|p| p[3] == 0),
            "a clear net has clear holes"
        );
        let opaque = Look {
            sheerness: 0.0,
            ..Look::VEIL
        };
        assert!(opaque.texture(32).iter().all(|p| p[3] == 255));
    }

    #[test]
    fn textures_are_opaque_except_the_veil() {
        for (_, look) in Look::SHIPPED {
            let t = look.texture(64);
            assert_eq!(t.len(), 64 * 64);
            let min_alpha = t.iter().map(|p| p[3]).min().unwrap();
            assert_eq!(min_alpha == 255, !look.translucent(), "{look:?}");
        }
        // Tweed is warm (red over blue) on average: it must not read as grey rubber.
        let t = Look::TWEED.texture(64);
        let (r, b): (u32, u32) = t
            .iter()
            .fold((0, 0), |(r, b), p| (r + p[0] as u32, b + p[2] as u32));
        assert!(r > b + b / 4);
    }
}
