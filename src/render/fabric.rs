//! Procedural fabric looks: textures the program makes itself, so each preset reads as the
//! cloth it is tuned for (tweed woven and matte, down quilted with a soft sheen, veil thin and
//! see-through from both sides).

/// How the jacket is shaded.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum FabricLook {
    /// Herringbone wool: warm brown twill with flecks, fully matte.
    #[default]
    Tweed,
    /// A padded down jacket: quilted channels, soft sheen.
    Down,
    /// Sheer black tulle: translucent, both sides visible.
    Veil,
}

impl FabricLook {
    /// Every look.
    pub const ALL: [FabricLook; 3] = [FabricLook::Tweed, FabricLook::Down, FabricLook::Veil];

    /// Picks the look for a preset from its name (or file name): "veil", "down"/"puffer",
    /// otherwise tweed.
    pub fn for_preset(name: &str) -> FabricLook {
        let n = name.to_ascii_lowercase();
        if n.contains("veil") || n.contains("silk") || n.contains("tulle") {
            FabricLook::Veil
        } else if n.contains("down") || n.contains("puffer") || n.contains("quilt") {
            FabricLook::Down
        } else {
            FabricLook::Tweed
        }
    }

    /// The name shown in the menu.
    pub fn label(self) -> &'static str {
        match self {
            FabricLook::Tweed => "Tweed (woven, matte)",
            FabricLook::Down => "Down (quilted, sheen)",
            FabricLook::Veil => "Veil (sheer, two-sided)",
        }
    }

    /// Roughness for the physical material (1 = fully matte).
    pub fn roughness(self) -> f32 {
        match self {
            FabricLook::Tweed => 0.97,
            FabricLook::Down => 0.42,
            FabricLook::Veil => 0.6,
        }
    }

    /// True when the fabric is see-through (rendered blended, both sides).
    pub fn translucent(self) -> bool {
        self == FabricLook::Veil
    }

    /// How many times the texture repeats across the jacket's UV square.
    pub fn repeat(self) -> [f32; 2] {
        match self {
            // About 7 cm per repeat both ways on the jacket (its UVs run 0..4 around ~1.4 m
            // and 0..2 down ~0.66 m): herringbone bands ~1.3 cm wide and a ~7 cm windowpane
            // overcheck, which is what reads as tweed from a few metres.
            FabricLook::Tweed => [2.5, 2.4],
            FabricLook::Down => [1.0, 1.0],
            FabricLook::Veil => [24.0, 14.0],
        }
    }

    /// The texture: `size` x `size` RGBA8, sRGB, rows top to bottom.
    pub fn texture(self, size: usize) -> Vec<[u8; 4]> {
        let mut px = vec![[0u8; 4]; size * size];
        for y in 0..size {
            for x in 0..size {
                px[y * size + x] = match self {
                    FabricLook::Tweed => tweed(x, y),
                    FabricLook::Down => down(x, y, size),
                    FabricLook::Veil => veil(x, y),
                };
            }
        }
        px
    }

    /// A representative colour of the lit fabric (sRGB), for tests that look for the jacket in
    /// a screenshot.
    pub fn base_color(self) -> [u8; 3] {
        match self {
            FabricLook::Tweed => [142, 100, 66],
            FabricLook::Down => [52, 72, 110],
            FabricLook::Veil => [28, 28, 34],
        }
    }
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
fn tweed(x: usize, y: usize) -> [u8; 4] {
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
    to_px(c, 255)
}

/// Quilted down: horizontal channels, each puffed (lighter in the middle) and stitched at the
/// seam, over a fine ripstop grid.
fn down(x: usize, y: usize, size: usize) -> [u8; 4] {
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
    to_px(c, 255)
}

/// Tulle: a fine hexagon-ish net of dark threads, mostly holes.
fn veil(x: usize, y: usize) -> [u8; 4] {
    let cell = 8;
    let row = y / cell;
    let xs = if row % 2 == 0 { x } else { x + cell / 2 };
    let on_thread = xs % cell == 0 || y % cell == 0 || (xs + y) % cell == 0;
    let c = [28.0, 28.0, 34.0];
    if on_thread {
        to_px(c, 215)
    } else {
        to_px(c, 70)
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
    fn preset_names_pick_their_look() {
        assert_eq!(FabricLook::for_preset("Tweed"), FabricLook::Tweed);
        assert_eq!(FabricLook::for_preset("Down jacket"), FabricLook::Down);
        assert_eq!(FabricLook::for_preset("Veil"), FabricLook::Veil);
        assert_eq!(FabricLook::for_preset("Untitled"), FabricLook::Tweed);
    }

    #[test]
    fn textures_are_opaque_except_the_veil() {
        for look in FabricLook::ALL {
            let t = look.texture(64);
            assert_eq!(t.len(), 64 * 64);
            let min_alpha = t.iter().map(|p| p[3]).min().unwrap();
            assert_eq!(min_alpha == 255, !look.translucent(), "{look:?}");
        }
        // Tweed is warm (red over blue) on average: it must not read as grey rubber.
        let t = FabricLook::Tweed.texture(64);
        let (r, b): (u32, u32) = t
            .iter()
            .fold((0, 0), |(r, b), p| (r + p[0] as u32, b + p[2] as u32));
        assert!(r > b + b / 4);
    }
}
