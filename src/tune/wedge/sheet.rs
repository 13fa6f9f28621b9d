//! The contact sheet: where each cell sits ([`Layout`], and back from a pixel to a cell with
//! [`Layout::cell_at`]) and the picture itself ([`sheet`]): a header naming the preset, clip
//! and frame, then each cell's picture over a strip with its knob values, one knob a line.
//! Text is drawn with egui's own monospace font (Hack), so the sheet needs no font file.

use ab_glyph::{point, Font, FontArc, GlyphId, PxScale, ScaleFont};

use std::sync::OnceLock;

use super::{FrameChoice, Wedge, WedgeSpec};
use crate::picture::Rgba;
use crate::tune::knobs::{value_text, Sweep};

/// A rectangle of pixels: left, top, width, height.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rect {
    pub x: u32,
    pub y: u32,
    pub width: u32,
    pub height: u32,
}

impl Rect {
    /// Whether the pixel `(x, y)` is inside.
    pub fn contains(&self, x: u32, y: u32) -> bool {
        x >= self.x && y >= self.y && x - self.x < self.width && y - self.y < self.height
    }
}

/// Where everything on a sheet is. Depends only on the cell count, the columns, the cell size
/// and the number of knobs, never on the text, so the tuner can map clicks without drawing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Layout {
    pub columns: usize,
    pub rows: usize,
    pub cells: usize,
    /// Each cell's picture, pixels.
    pub cell_width: u32,
    pub cell_height: u32,
    /// The strip under each picture with its knob values, one knob a line.
    pub label_height: u32,
    /// The strip at the top naming the preset, clip and frame.
    pub header_height: u32,
    /// Space between cells and around the sheet's edge.
    pub gap: u32,
    /// The labels' text size (the height of a line of type), pixels.
    pub font_px: f32,
    /// The header's text size, pixels.
    pub header_px: f32,
}

impl Layout {
    /// `cells` cells in rows of `columns`, each `cell_width` x `cell_height` with a label
    /// strip of `knobs` lines, under a header of `header_lines` lines.
    pub fn new(
        columns: usize,
        cells: usize,
        cell_width: u32,
        cell_height: u32,
        knobs: usize,
        header_lines: usize,
    ) -> Layout {
        let columns = columns.max(1);
        // Type about a thirteenth of the picture's height: 20 px on a 480x270 cell, big
        // enough to read at a glance when the sheet is scaled to fit a screen.
        let font_px = (cell_height as f32 / 13.5).clamp(12.0, 32.0).round();
        let header_px = (font_px * 1.2).round();
        // The same margin as `Layout::pad`.
        let pad = (font_px * 0.4).ceil() as u32;
        Layout {
            columns,
            rows: cells.div_ceil(columns),
            cells,
            cell_width,
            cell_height,
            label_height: knobs.max(1) as u32 * line_height(font_px) + 2 * pad,
            header_height: header_lines.max(1) as u32 * line_height(header_px) + 2 * pad,
            gap: (cell_width / 80).clamp(2, 8),
            font_px,
            header_px,
        }
    }

    /// The sheet's size, pixels.
    pub fn width(&self) -> u32 {
        self.columns as u32 * (self.cell_width + self.gap) + self.gap
    }

    pub fn height(&self) -> u32 {
        self.header_height + self.rows as u32 * (self.cell_full_height() + self.gap) + self.gap
    }

    /// The margin around text, pixels.
    fn pad(&self) -> u32 {
        (self.font_px * 0.4).ceil() as u32
    }

    /// The width a header line may take, pixels.
    fn header_room(&self) -> f32 {
        self.width() as f32 - 2.0 * self.pad() as f32
    }

    /// A cell's picture and label strip together.
    fn cell_full_height(&self) -> u32 {
        self.cell_height + self.label_height
    }

    /// Cell `i`'s whole rectangle: its picture and its label strip.
    pub fn cell_rect(&self, i: usize) -> Rect {
        let (col, row) = ((i % self.columns) as u32, (i / self.columns) as u32);
        Rect {
            x: self.gap + col * (self.cell_width + self.gap),
            y: self.header_height + self.gap + row * (self.cell_full_height() + self.gap),
            width: self.cell_width,
            height: self.cell_full_height(),
        }
    }

    /// Cell `i`'s picture.
    pub fn picture_rect(&self, i: usize) -> Rect {
        Rect {
            height: self.cell_height,
            ..self.cell_rect(i)
        }
    }

    /// Cell `i`'s label strip, under its picture.
    pub fn label_rect(&self, i: usize) -> Rect {
        let r = self.cell_rect(i);
        Rect {
            y: r.y + self.cell_height,
            height: self.label_height,
            ..r
        }
    }

    /// The cell whose picture or label the sheet's pixel `(x, y)` is on; `None` on the
    /// header, the gaps and the empty end of the last row.
    pub fn cell_at(&self, x: u32, y: u32) -> Option<usize> {
        let top = self.header_height + self.gap;
        if x < self.gap || y < top {
            return None;
        }
        let col = ((x - self.gap) / (self.cell_width + self.gap)) as usize;
        let row = ((y - top) / (self.cell_full_height() + self.gap)) as usize;
        let i = row * self.columns + col;
        (col < self.columns && i < self.cells && self.cell_rect(i).contains(x, y)).then_some(i)
    }
}

/// A line of type's height for text `px` pixels tall.
fn line_height(px: f32) -> u32 {
    (px * 1.3).ceil() as u32
}

const BACKGROUND: [u8; 3] = [24, 24, 27];
const HEADER_BACKGROUND: [u8; 3] = [14, 14, 16];
const LABEL_BACKGROUND: [u8; 3] = [40, 40, 46];
const TEXT: [u8; 3] = [236, 236, 236];
const DIM_TEXT: [u8; 3] = [150, 150, 160];

/// The sheet's background, between the cells and a filmstrip's frames.
pub(super) fn background() -> [u8; 4] {
    opaque(BACKGROUND)
}

/// The contact sheet of a wedge: the header, then every cell's picture with its knob values
/// beneath. The same wedge gives the same pixels.
pub fn sheet(wedge: &Wedge) -> Rgba {
    let l = &wedge.layout;
    let mut img = Rgba {
        width: l.width(),
        height: l.height(),
        pixels: vec![opaque(BACKGROUND); l.width() as usize * l.height() as usize],
    };
    let font = font();
    let header = Rect {
        x: 0,
        y: 0,
        width: l.width(),
        height: l.header_height,
    };
    fill(&mut img, header, HEADER_BACKGROUND);
    draw_header(&mut img, font, wedge);
    let labels: Vec<Vec<String>> = wedge.cells.iter().map(label_lines).collect();
    let numbers: Vec<String> = (0..wedge.cells.len()).map(|i| format!("#{i}")).collect();
    // One text size for every label, shrunk only when the longest line would not fit, so the
    // sheet reads evenly.
    let pad = l.pad() as f32;
    let room = l.cell_width as f32 - 2.0 * pad;
    let widest = labels
        .iter()
        .zip(&numbers)
        .map(|(lines, number)| {
            let first = lines.first().map_or(0.0, |t| text_width(font, 1.0, t));
            let rest = lines.iter().map(|t| text_width(font, 1.0, t));
            // The cell's number sits at the right of its first line.
            let number = text_width(font, 1.0, &format!("  {number}"));
            rest.fold(first + number, f32::max)
        })
        .fold(0.0, f32::max);
    let px = fit_px(l.font_px, widest, room);
    for (i, cell) in wedge.cells.iter().enumerate() {
        blit(&mut img, &cell.image, l.picture_rect(i));
        let strip = l.label_rect(i);
        fill(&mut img, strip, LABEL_BACKGROUND);
        let pen = Pen {
            font,
            px,
            colour: TEXT,
            clip: strip,
        };
        let line_h = line_height(l.font_px) as f32;
        let mut top = strip.y as f32 + pad;
        for line in &labels[i] {
            pen.write(&mut img, strip.x as f32 + pad, top, line);
            top += line_h;
        }
        // The cell's number, dimmer, at the right of the first line.
        let number_x = (strip.x + strip.width) as f32 - pad - text_width(font, px, &numbers[i]);
        let dim = Pen {
            colour: DIM_TEXT,
            ..pen
        };
        dim.write(&mut img, number_x, strip.y as f32 + pad, &numbers[i]);
    }
    img
}

/// A cell's label: one line per knob, `damping 0.0163 per step`.
fn label_lines(cell: &super::Cell) -> Vec<String> {
    cell.setting
        .0
        .iter()
        .map(|(spec, v)| {
            let unit = if spec.unit.is_empty() {
                String::new()
            } else {
                format!(" {}", spec.unit)
            };
            format!("{} {}{unit}", spec.name, value_text(spec, *v))
        })
        .collect()
}

/// Between the parts of a header line.
const SEPARATOR: &str = "  ·  ";

/// The header's parts in two groups: what was wedged (preset, clip, frames and how they were
/// chosen, camera, trails), then which knob goes which way.
fn header_parts(spec: &WedgeSpec, choice: FrameChoice) -> [Vec<String>; 2] {
    let frames = match choice.reason() {
        Some(why) => format!("{}, {why}", spec.frames_text()),
        None => spec.frames_text(),
    };
    let mut what = vec![
        format!("{} ({})", spec.preset.name, spec.preset_file_name()),
        format!("clip {}", spec.clip),
        frames,
        format!("{} camera", spec.camera.file_label()),
    ];
    if spec.trails {
        what.push("trails: the last second of the hem and front edges".into());
    }
    if let Some(c) = &spec.character_label {
        what.push(format!("on {c}"));
    }
    let range = |sweep: &Sweep| {
        let (a, b) = (sweep.values[0], sweep.values[sweep.values.len() - 1]);
        let spec = sweep.spec;
        if sweep.values.len() == 1 {
            format!("{} {}", spec.name, value_text(spec, a))
        } else {
            format!(
                "{} {} to {} ({})",
                spec.name,
                value_text(spec, a),
                value_text(spec, b),
                sweep.values.len()
            )
        }
    };
    let mut knobs = Vec::new();
    for (k, sweep) in spec.sweeps.iter().enumerate() {
        // The second knob changes fastest down the rows, as the first does across.
        let lead = match k {
            0 => "across: ",
            1 => "down: ",
            _ => "then ",
        };
        knobs.push(format!("{lead}{}", range(sweep)));
    }
    [what, knobs]
}

/// The header as it is drawn: each group's parts joined on a line while they fit in `room`
/// pixels at `px`, else on the next line; `true` for the dimmer lines of the second group.
fn header_lines(spec: &WedgeSpec, choice: FrameChoice, px: f32, room: f32) -> Vec<(String, bool)> {
    let font = font();
    let mut lines = Vec::new();
    for (group, parts) in header_parts(spec, choice).into_iter().enumerate() {
        let mut line = String::new();
        for part in parts {
            let joined = format!("{line}{SEPARATOR}{part}");
            if line.is_empty() {
                line = part;
            } else if text_width(font, px, &joined) <= room {
                line = joined;
            } else {
                lines.push((std::mem::replace(&mut line, part), group == 1));
            }
        }
        if !line.is_empty() {
            lines.push((line, group == 1));
        }
    }
    lines
}

/// The sheet's layout for `spec` with its frames chosen by `choice`: the first knob's values
/// across, each cell as wide as its filmstrip, the header wrapped to the sheet's width.
pub(super) fn layout_for(spec: &WedgeSpec, choice: FrameChoice) -> Layout {
    let columns = spec.sweeps.first().map_or(1, |s| s.values.len());
    let cells = spec.sweeps.iter().map(|s| s.values.len()).product();
    let knobs = spec.sweeps.len();
    let (w, h) = (spec.strip_width(), spec.cell_height);
    let one_line = Layout::new(columns, cells, w, h, knobs, 1);
    let lines = header_lines(spec, choice, one_line.header_px, one_line.header_room());
    Layout::new(columns, cells, w, h, knobs, lines.len())
}

fn draw_header(img: &mut Rgba, font: &FontArc, wedge: &Wedge) {
    let l = &wedge.layout;
    let area = Rect {
        x: 0,
        y: 0,
        width: l.width(),
        height: l.header_height,
    };
    let lines = header_lines(
        &wedge.spec,
        wedge.frame_choice,
        l.header_px,
        l.header_room(),
    );
    // A single part wider than the sheet (a narrow sheet) is shrunk to fit, like the labels.
    let widest = lines
        .iter()
        .map(|(t, _)| text_width(font, 1.0, t))
        .fold(0.0, f32::max);
    let px = fit_px(l.header_px, widest, l.header_room());
    let mut top = l.pad() as f32;
    for (line, dim) in &lines {
        let pen = Pen {
            font,
            px,
            colour: if *dim { DIM_TEXT } else { TEXT },
            clip: area,
        };
        pen.write(img, l.pad() as f32, top, line);
        top += line_height(l.header_px) as f32;
    }
}

/// `px`, or smaller so text `width_at_1px` wide at 1 px fits in `room` (never below 8 px:
/// smaller is unreadable, so the text is cut at the edge instead).
fn fit_px(px: f32, width_at_1px: f32, room: f32) -> f32 {
    if width_at_1px * px <= room || width_at_1px <= 0.0 {
        return px;
    }
    (room / width_at_1px).floor().clamp(8.0, px)
}

/// egui's monospace font: in every build with the tuner, and monospace keeps columns of
/// numbers aligned. Parsed once.
fn font() -> &'static FontArc {
    static FONT: OnceLock<FontArc> = OnceLock::new();
    FONT.get_or_init(|| {
        let fonts = eframe::egui::FontDefinitions::default();
        fonts
            .font_data
            .get("Hack")
            .or_else(|| fonts.font_data.values().next())
            .and_then(|data| FontArc::try_from_vec((*data.font).as_ref().to_vec()).ok())
            .expect("egui's default fonts are built in and parse")
    })
}

/// How wide `text` is at `px` pixels, with kerning.
fn text_width(font: &FontArc, px: f32, text: &str) -> f32 {
    let scaled = font.as_scaled(PxScale::from(px));
    let mut width = 0.0;
    let mut prev: Option<GlyphId> = None;
    for c in text.chars() {
        let id = scaled.glyph_id(c);
        if let Some(p) = prev {
            width += scaled.kern(p, id);
        }
        width += scaled.h_advance(id);
        prev = Some(id);
    }
    width
}

/// How text is drawn: the font, its size and colour, and the rectangle nothing is drawn
/// outside of.
struct Pen<'a> {
    font: &'a FontArc,
    px: f32,
    colour: [u8; 3],
    clip: Rect,
}

impl Pen<'_> {
    /// Draws `text` with its top at `top`, blending the glyphs' coverage over what is there.
    fn write(&self, img: &mut Rgba, left: f32, top: f32, text: &str) {
        let scaled = self.font.as_scaled(PxScale::from(self.px));
        // Whole-pixel baseline and pen start: crisp stems, and every cell's label the same.
        let baseline = (top + scaled.ascent()).round();
        let mut caret = left.round();
        let mut prev: Option<GlyphId> = None;
        for c in text.chars() {
            let id = scaled.glyph_id(c);
            if let Some(p) = prev {
                caret += scaled.kern(p, id);
            }
            let glyph = id.with_scale_and_position(self.px, point(caret, baseline));
            caret += scaled.h_advance(id);
            prev = Some(id);
            if let Some(outline) = self.font.outline_glyph(glyph) {
                let bounds = outline.px_bounds();
                outline.draw(|gx, gy, coverage| {
                    let x = bounds.min.x as i64 + gx as i64;
                    let y = bounds.min.y as i64 + gy as i64;
                    self.blend(img, x, y, coverage);
                });
            }
        }
    }

    fn blend(&self, img: &mut Rgba, x: i64, y: i64, coverage: f32) {
        if x < 0 || y < 0 || x >= img.width as i64 || !self.clip.contains(x as u32, y as u32) {
            return;
        }
        if let Some(p) = img
            .pixels
            .get_mut(y as usize * img.width as usize + x as usize)
        {
            let a = coverage.clamp(0.0, 1.0);
            for (channel, ink) in p.iter_mut().zip(self.colour) {
                *channel = (*channel as f32 * (1.0 - a) + ink as f32 * a).round() as u8;
            }
        }
    }
}

fn opaque(c: [u8; 3]) -> [u8; 4] {
    [c[0], c[1], c[2], 255]
}

/// Fills `r` (clipped to the picture) with `colour`.
fn fill(img: &mut Rgba, r: Rect, colour: [u8; 3]) {
    let w = img.width as usize;
    for y in r.y..(r.y + r.height).min(img.height) {
        let row = y as usize * w;
        let (x0, x1) = (r.x as usize, ((r.x + r.width) as usize).min(w));
        img.pixels[row + x0..row + x1].fill(opaque(colour));
    }
}

/// Copies `src` into `r` (its top-left part, if `src` is larger).
fn blit(img: &mut Rgba, src: &Rgba, r: Rect) {
    let w = img.width as usize;
    let cols = r.width.min(src.width) as usize;
    for y in 0..r.height.min(src.height) {
        let to = (r.y + y) as usize * w + r.x as usize;
        let from = y as usize * src.width as usize;
        img.pixels[to..to + cols].copy_from_slice(&src.pixels[from..from + cols]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout() -> Layout {
        // 3 columns, 5 cells: two rows, the second with an empty end.
        Layout::new(3, 5, 100, 60, 2, 2)
    }

    #[test]
    fn the_sheet_holds_every_cell_and_its_header() {
        let l = layout();
        assert_eq!((l.columns, l.rows), (3, 2));
        assert_eq!(l.width(), 3 * 100 + 4 * l.gap);
        assert_eq!(
            l.height(),
            l.header_height + 2 * (60 + l.label_height) + 3 * l.gap
        );
        let last = l.cell_rect(4);
        assert!(last.y + last.height + l.gap == l.height());
        assert!(
            l.label_height >= 2 * line_height(l.font_px),
            "two knobs, two lines"
        );
    }

    #[test]
    fn cells_do_not_overlap_and_go_across_first() {
        let l = layout();
        let r0 = l.cell_rect(0);
        let r1 = l.cell_rect(1);
        let r3 = l.cell_rect(3);
        assert_eq!(r1.y, r0.y);
        assert_eq!(r1.x, r0.x + r0.width + l.gap);
        assert_eq!(r3.x, r0.x);
        assert_eq!(r3.y, r0.y + r0.height + l.gap);
        assert_eq!(l.picture_rect(1).height, 60);
        assert_eq!(l.label_rect(1).y, r1.y + 60);
    }

    #[test]
    fn cell_at_finds_the_cell_under_every_pixel_and_none_between() {
        let l = layout();
        for i in 0..l.cells {
            let r = l.cell_rect(i);
            for (x, y) in [
                (r.x, r.y),
                (r.x + r.width - 1, r.y + r.height - 1),
                (r.x + r.width / 2, r.y + 70),
            ] {
                assert_eq!(l.cell_at(x, y), Some(i), "cell {i} at {x},{y}");
            }
            // Just outside: the gap to the right and the one below.
            assert_eq!(l.cell_at(r.x + r.width, r.y), None);
            assert_eq!(l.cell_at(r.x, r.y + r.height), None);
        }
        assert_eq!(l.cell_at(0, 0), None, "the header");
        assert_eq!(l.cell_at(l.gap + 5, l.header_height / 2), None);
        let empty = l.cell_rect(5);
        assert_eq!(l.cell_at(empty.x + 1, empty.y + 1), None, "no sixth cell");
        assert_eq!(l.cell_at(l.width() + 10, l.height() + 10), None);
        // Every pixel of the sheet maps to at most one cell, and every cell owns its area.
        let mut owned = vec![0usize; l.cells];
        for y in 0..l.height() {
            for x in 0..l.width() {
                if let Some(i) = l.cell_at(x, y) {
                    owned[i] += 1;
                }
            }
        }
        let area = (100 * (60 + l.label_height)) as usize;
        assert!(owned.iter().all(|&n| n == area), "{owned:?} vs {area}");
    }

    #[test]
    fn text_is_drawn_and_shrinks_only_to_fit() {
        let font = font();
        let mut img = Rgba {
            width: 200,
            height: 40,
            pixels: vec![opaque(BACKGROUND); 200 * 40],
        };
        let all = Rect {
            x: 0,
            y: 0,
            width: 200,
            height: 40,
        };
        let pen = Pen {
            font,
            px: 20.0,
            colour: TEXT,
            clip: all,
        };
        pen.write(&mut img, 4.0, 4.0, "damping 0.01");
        let lit = img.pixels.iter().filter(|p| p[0] > 128).count();
        assert!(lit > 50, "{lit} bright pixels");
        let w = text_width(font, 1.0, "damping 0.01");
        assert_eq!(fit_px(20.0, w, 1000.0), 20.0);
        let shrunk = fit_px(20.0, w, 100.0);
        assert!(shrunk < 20.0 && w * shrunk <= 100.0, "{shrunk}");
        assert_eq!(fit_px(20.0, w, 1.0), 8.0);
    }
}
