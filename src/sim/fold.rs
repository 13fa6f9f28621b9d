//! Fold lines (Lander, "Devil in the Blue Faceted Dress"): a row or a column of the simulation grid across which the bend links
//! are taken out, so the fabric folds there as if creased, while stretch and shear hold it
//! together as before. A bend link joins particles two apart; the one "across" row `r` is the
//! vertical one from row `r - 1` to row `r + 1` (one per column), the one across column `c`
//! the horizontal one from column `c - 1` to `c + 1` (one per row). So a fold line sits on an
//! inner row (1 to rows - 2) or an inner column (1 to cols - 2).

use serde::{Deserialize, Serialize};

use super::topology::{ConstraintKind, Topology};

/// Which way a fold line runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum FoldAxis {
    /// Along a row (around the body): the cloth folds up and down there.
    Row,
    /// Along a column (top to hem): the cloth folds sideways there.
    Column,
}

impl FoldAxis {
    /// The name used in the file.
    pub fn as_str(self) -> &'static str {
        match self {
            FoldAxis::Row => "row",
            FoldAxis::Column => "column",
        }
    }
}

/// A row or a column of the simulation grid with no bend links across it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct FoldLine {
    /// `"row"` or `"column"`.
    pub axis: FoldAxis,
    /// The row (0 = the pinned top row) or column: an inner one, 1 to rows - 2 or 1 to
    /// cols - 2.
    #[cfg_attr(feature = "schema", schemars(range(min = 1)))]
    pub index: usize,
}

/// A fold line off the grid's inner rows or columns.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("fold line on {} {index} is off the grid: allowed {}", .axis.as_str(), allowed_text(*.axis, *.cols, *.rows))]
pub struct FoldError {
    /// The line's axis.
    pub axis: FoldAxis,
    /// The index given.
    pub index: usize,
    /// The grid's columns.
    pub cols: usize,
    /// The grid's rows.
    pub rows: usize,
}

/// The allowed indices for `axis` on a `cols` x `rows` grid, for a person.
pub fn allowed_text(axis: FoldAxis, cols: usize, rows: usize) -> String {
    let (n, what) = match axis {
        FoldAxis::Row => (rows, "rows"),
        FoldAxis::Column => (cols, "columns"),
    };
    format!(
        "1 to {} (the inner {what} of the {cols} x {rows} grid)",
        n.saturating_sub(2)
    )
}

impl FoldLine {
    /// Ok when the line lies on an inner row or column of a `cols` x `rows` grid.
    pub fn check(&self, cols: usize, rows: usize) -> Result<(), FoldError> {
        let n = match self.axis {
            FoldAxis::Row => rows,
            FoldAxis::Column => cols,
        };
        if self.index >= 1 && self.index + 2 <= n {
            Ok(())
        } else {
            Err(FoldError {
                axis: self.axis,
                index: self.index,
                cols,
                rows,
            })
        }
    }

    /// Whether the bend link from `a` to `b` of `topo` crosses this line.
    fn crosses(&self, topo: &Topology, a: usize, b: usize) -> bool {
        let (ra, rb, ca, cb) = (topo.row(a), topo.row(b), topo.col(a), topo.col(b));
        match self.axis {
            FoldAxis::Row => ca == cb && ra.min(rb) + 1 == self.index && ra.abs_diff(rb) == 2,
            FoldAxis::Column => ra == rb && ca.min(cb) + 1 == self.index && ca.abs_diff(cb) == 2,
        }
    }
}

impl Topology {
    /// This topology without the bend links across `lines` (each checked against the grid
    /// first; nothing is removed on an error).
    pub fn with_fold_lines(mut self, lines: &[FoldLine]) -> Result<Self, FoldError> {
        for line in lines {
            line.check(self.cols, self.rows)?;
        }
        let links = std::mem::take(&mut self.links);
        self.links = links
            .into_iter()
            .filter(|l| {
                l.kind != ConstraintKind::Bend
                    || !lines
                        .iter()
                        .any(|f| f.crosses(&self, l.a as usize, l.b as usize))
            })
            .collect();
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    #[test]
    fn a_fold_line_removes_one_bend_link_per_column_or_row() {
        let t = Topology::flat_grid(6, 5, 0.1, Vec3::ZERO);
        let before = t.links.len();
        let row = FoldLine {
            axis: FoldAxis::Row,
            index: 2,
        };
        let folded = t.clone().with_fold_lines(&[row]).unwrap();
        assert_eq!(before - folded.links.len(), 6);
        let col = FoldLine {
            axis: FoldAxis::Column,
            index: 4,
        };
        let both = t.clone().with_fold_lines(&[row, col]).unwrap();
        assert_eq!(before - both.links.len(), 6 + 5);
        assert!(both
            .links
            .iter()
            .all(|l| l.kind == ConstraintKind::Bend || t.links.contains(l)));
    }

    #[test]
    fn a_fold_line_off_the_inner_grid_is_an_error_naming_the_range() {
        let t = Topology::flat_grid(6, 5, 0.1, Vec3::ZERO);
        for (axis, index) in [
            (FoldAxis::Row, 0),
            (FoldAxis::Row, 4),
            (FoldAxis::Column, 5),
        ] {
            let e = t
                .clone()
                .with_fold_lines(&[FoldLine { axis, index }])
                .unwrap_err();
            assert_eq!((e.axis, e.index), (axis, index));
        }
        let e = FoldLine {
            axis: FoldAxis::Column,
            index: 9,
        }
        .check(6, 5)
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "fold line on column 9 is off the grid: allowed 1 to 4 (the inner columns of the 6 x 5 grid)"
        );
    }
}
