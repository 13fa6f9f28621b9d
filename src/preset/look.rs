//! How a preset's fabric looks: its weave, colour and sheerness, stored in the preset so a
//! fabric saved under any file name keeps its look (the picture, the tuner and the regression
//! goldens all read it from here).

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The weave the fabric's texture shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Pattern {
    /// Herringbone twill with heathered yarn and an overcheck: tweed, wool; fully matte.
    #[default]
    Woven,
    /// Padded channels stitched across, with a soft sheen: a down jacket.
    Quilted,
    /// A fine net of threads, mostly holes: tulle, a veil.
    Net,
}

impl Pattern {
    /// Every pattern.
    pub const ALL: [Pattern; 3] = [Pattern::Woven, Pattern::Quilted, Pattern::Net];

    /// The name in the file and the menus.
    pub fn as_str(self) -> &'static str {
        match self {
            Pattern::Woven => "woven",
            Pattern::Quilted => "quilted",
            Pattern::Net => "net",
        }
    }
}

/// An sRGB colour, written `"#rrggbb"` in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Colour(pub [u8; 3]);

impl fmt::Display for Colour {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [r, g, b] = self.0;
        write!(f, "#{r:02x}{g:02x}{b:02x}")
    }
}

impl std::str::FromStr for Colour {
    type Err = String;

    fn from_str(s: &str) -> Result<Colour, String> {
        let bad = || format!("`{s}` is not a colour: write \"#rrggbb\" (e.g. \"#8e6442\")");
        let hex = s
            .strip_prefix('#')
            .filter(|h| h.len() == 6)
            .ok_or_else(bad)?;
        let byte = |i: usize| {
            hex.get(i..i + 2)
                .and_then(|b| u8::from_str_radix(b, 16).ok())
                .ok_or_else(bad)
        };
        Ok(Colour([byte(0)?, byte(2)?, byte(4)?]))
    }
}

impl Serialize for Colour {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl<'de> Deserialize<'de> for Colour {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Colour, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for Colour {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Colour".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "An sRGB colour, \"#rrggbb\".",
            "type": "string",
            "pattern": "^#[0-9a-fA-F]{6}$"
        })
    }
}

/// The fabric's look.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Look {
    /// The weave the texture shows.
    pub pattern: Pattern,
    /// The yarn's colour in light ("#8e6442" for brown tweed); the weave's darker and
    /// lighter threads are shaded from it.
    pub colour: Colour,
    /// How see-through the fabric is, 0 to 1: 0 is opaque; above 0 the fabric is drawn
    /// blended and from both sides. A net's holes let through more than its threads.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(range(min = 0.0, max = 1.0)))]
    pub sheerness: f32,
}

impl Default for Look {
    fn default() -> Self {
        Look::TWEED
    }
}

impl Look {
    /// Brown herringbone tweed.
    pub const TWEED: Look = Look {
        pattern: Pattern::Woven,
        colour: Colour([142, 100, 66]),
        sheerness: 0.0,
    };
    /// A navy quilted down jacket.
    pub const DOWN: Look = Look {
        pattern: Pattern::Quilted,
        colour: Colour([52, 72, 110]),
        sheerness: 0.0,
    };
    /// Black tulle.
    pub const VEIL: Look = Look {
        pattern: Pattern::Net,
        colour: Colour([28, 28, 34]),
        sheerness: 0.7,
    };
    /// The looks the shipped presets wear, with their menu names.
    pub const SHIPPED: [(&'static str, Look); 3] = [
        ("Tweed (woven, matte)", Look::TWEED),
        ("Down (quilted, sheen)", Look::DOWN),
        ("Veil (sheer net, two-sided)", Look::VEIL),
    ];

    /// The look a preset of format version 1 had: chosen from its name and file name ("veil",
    /// "silk", "tulle"; "down", "puffer", "quilt"; otherwise tweed).
    pub fn from_name(name: &str) -> Look {
        let n = name.to_ascii_lowercase();
        if n.contains("veil") || n.contains("silk") || n.contains("tulle") {
            Look::VEIL
        } else if n.contains("down") || n.contains("puffer") || n.contains("quilt") {
            Look::DOWN
        } else {
            Look::TWEED
        }
    }

    /// True when the fabric is see-through (drawn blended, both sides).
    pub fn translucent(&self) -> bool {
        self.sheerness > 0.0
    }

    /// The allowed range of `sheerness`, for messages.
    pub const SHEERNESS_RANGE: &'static str = "0 to 1";

    /// True when every value is in range.
    pub fn in_range(&self) -> bool {
        (0.0..=1.0).contains(&self.sheerness)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_read_and_write_as_hex_and_bad_ones_say_how_to_write_them() {
        let c: Colour = "#8E6442".parse().unwrap();
        assert_eq!(c, Colour([142, 100, 66]));
        assert_eq!(c.to_string(), "#8e6442");
        for bad in ["8e6442", "#8e644", "#8e64zz", "#8e64421", "", "#ééé"] {
            let e = bad.parse::<Colour>().unwrap_err();
            assert!(e.contains("#rrggbb"), "{bad}: {e}");
        }
    }

    #[test]
    fn version_1_names_pick_the_look_they_always_had() {
        assert_eq!(Look::from_name("Tweed tweed"), Look::TWEED);
        assert_eq!(Look::from_name("Down jacket down_jacket"), Look::DOWN);
        assert_eq!(Look::from_name("Untitled veil"), Look::VEIL);
        assert_eq!(Look::from_name("Untitled my_wool"), Look::TWEED);
        assert!(Look::VEIL.translucent() && !Look::TWEED.translucent());
    }
}
