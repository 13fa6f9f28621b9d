//! A max distance painted per particle on the simulation grid (`max_distance_map` in the
//! preset file): the grid it was painted on, and one entry per particle, metres or `null`
//! where the fabric's curve applies.
//!
//! A painted value is final: it is not scaled by `edge_max_distance_scale` (the artist paints
//! the distance the particle gets). It is ignored on the pinned top row. A map painted on
//! another grid is refused, never resampled: a resampled map would put the artist's strokes
//! where they were not painted. The solver's rule is [`crate::sim::painted::painted_or_curve`].

use serde::{Deserialize, Serialize};

use crate::sim::FabricParams;

/// The largest and smallest grid side a map may name, particles.
pub const GRID_SIDE: std::ops::RangeInclusive<usize> = 2..=1000;

/// A per-particle max distance painted on a `cols` x `rows` grid.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(transform = schema_bounds))]
#[serde(deny_unknown_fields)]
pub struct MaxDistanceMap {
    /// Particles per row of the grid the map was painted on (2 to 1000; the jacket's is 17).
    pub cols: usize,
    /// Rows of that grid, top to hem (2 to 1000; the jacket's is 10).
    pub rows: usize,
    /// One entry per particle, row-major (`row * cols + col`, row 0 the pinned top row):
    /// the max distance in metres (0 to 1, final: not scaled by `edge_max_distance_scale`),
    /// or `null` where the fabric's curve applies. Ignored on the pinned top row.
    pub metres: Vec<Option<f32>>,
}

/// What is wrong with a map, for the preset's messages.
#[derive(Clone, Debug, PartialEq)]
pub enum MapProblem {
    /// `cols` or `rows` outside [`GRID_SIDE`].
    Side {
        /// `"cols"` or `"rows"`.
        field: &'static str,
        /// The value found.
        value: usize,
    },
    /// `metres` does not hold one entry per particle.
    Length {
        /// Entries found.
        found: usize,
        /// Particles of the grid.
        expected: usize,
    },
    /// An entry outside 0 to [`MaxDistanceMap::max_metres`], or not finite.
    Value {
        /// The entry's index.
        index: usize,
        /// The value found.
        value: f32,
    },
}

impl MaxDistanceMap {
    /// A map for a `cols` x `rows` grid with nothing painted.
    pub fn new(cols: usize, rows: usize) -> Self {
        Self {
            cols,
            rows,
            metres: vec![None; cols * rows],
        }
    }

    /// The largest value a particle may be painted with: the max-distance knobs' top (1 m).
    pub fn max_metres() -> f32 {
        FabricParams::spec("max_distance_hem").map_or(1.0, |s| s.max as f32)
    }

    /// The allowed range of an entry, for messages.
    pub fn range_text() -> String {
        format!("0 to {} m, or null for the curve", Self::max_metres())
    }

    /// True when no particle is painted.
    pub fn is_blank(&self) -> bool {
        self.metres.iter().all(Option::is_none)
    }

    /// The first problem with the map, if any: grid sides, length, values (NaN, negative,
    /// above [`MaxDistanceMap::max_metres`]).
    pub fn problem(&self) -> Option<MapProblem> {
        for (field, value) in [("cols", self.cols), ("rows", self.rows)] {
            if !GRID_SIDE.contains(&value) {
                return Some(MapProblem::Side { field, value });
            }
        }
        let expected = self.cols * self.rows;
        if self.metres.len() != expected {
            return Some(MapProblem::Length {
                found: self.metres.len(),
                expected,
            });
        }
        let max = Self::max_metres();
        self.metres.iter().enumerate().find_map(|(index, v)| {
            let v = (*v)?;
            (!(0.0..=max).contains(&v)).then_some(MapProblem::Value { index, value: v })
        })
    }

    /// Why the map cannot be used on a `cols` x `rows` grid (the garment's), if it cannot: a
    /// map painted on another grid is refused.
    pub fn grid_mismatch(&self, cols: usize, rows: usize) -> Option<String> {
        (self.cols != cols || self.rows != rows).then(|| {
            format!(
                "painted on a {} x {} grid, but the garment's simulation grid is {cols} x {rows} \
                 (cols must be {cols} and rows {rows}); repaint it, or remove the field to use \
                 the max-distance curve",
                self.cols, self.rows
            )
        })
    }
}

/// The map's bounds in the JSON Schema, from the same constants the loader checks with (the
/// length, one entry per particle, is the loader's alone).
#[cfg(feature = "schema")]
fn schema_bounds(schema: &mut schemars::Schema) {
    let Some(props) = schema.get_mut("properties").and_then(|p| p.as_object_mut()) else {
        return;
    };
    for side in ["cols", "rows"] {
        if let Some(p) = props.get_mut(side).and_then(|p| p.as_object_mut()) {
            p.insert("minimum".into(), (*GRID_SIDE.start()).into());
            p.insert("maximum".into(), (*GRID_SIDE.end()).into());
        }
    }
    let items = props
        .get_mut("metres")
        .and_then(|p| p.get_mut("items"))
        .and_then(|p| p.as_object_mut());
    if let Some(items) = items {
        items.insert("minimum".into(), 0.0.into());
        items.insert("maximum".into(), MaxDistanceMap::max_metres().into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn problems_are_found_in_order_sides_length_values() {
        let mut m = MaxDistanceMap::new(3, 2);
        assert_eq!(m.problem(), None);
        m.metres[4] = Some(f32::NAN);
        assert!(matches!(
            m.problem(),
            Some(MapProblem::Value { index: 4, .. })
        ));
        m.metres[4] = Some(-0.01);
        assert!(matches!(
            m.problem(),
            Some(MapProblem::Value { index: 4, .. })
        ));
        m.metres[4] = Some(1.5);
        assert!(matches!(
            m.problem(),
            Some(MapProblem::Value { index: 4, .. })
        ));
        m.metres[4] = Some(1.0);
        assert_eq!(m.problem(), None);
        m.metres.pop();
        assert_eq!(
            m.problem(),
            Some(MapProblem::Length {
                found: 5,
                expected: 6
            })
        );
        m.cols = 1;
        assert_eq!(
            m.problem(),
            Some(MapProblem::Side {
                field: "cols",
                value: 1
            })
        );
    }

    #[test]
    fn another_grid_is_refused_with_both_sizes() {
        let m = MaxDistanceMap::new(9, 6);
        let e = m.grid_mismatch(17, 10).unwrap();
        assert!(e.contains("9 x 6") && e.contains("17 x 10"), "{e}");
        assert_eq!(m.grid_mismatch(9, 6), None);
    }
}
