//! The page beside a contact sheet: the sheet with each cell clickable, then a table with a row
//! per cell (its knob values, where it is on the sheet, a link to its preset, and its
//! `simulate` metrics), so a cell picked by eye can be checked by number and opened in the
//! tuner.

use std::fmt::Write as _;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};

use super::Wedge;
use crate::tune::knobs::value_text;
use html_escape::encode_double_quoted_attribute as escape;

/// The page for `wedge`, whose sheet is the file `sheet_src` and whose cells' presets are in
/// the folder `cells_dir` (both relative to the page, as written beside it).
pub fn html(wedge: &Wedge, sheet_src: &str, cells_dir: &str) -> String {
    let s = &wedge.spec;
    let l = &wedge.layout;
    let mut out = String::new();
    let title = format!(
        "Wedge: {} ({}) on {}, {}",
        s.preset.name,
        s.preset_file_name(),
        s.clip,
        s.frames_text()
    );
    let _ = write!(
        out,
        "<!doctype html>\n<meta charset=\"utf-8\">\n<title>{t}</title>\n\
         <style>body{{font-family:sans-serif;background:#222;color:#ddd}} \
         img{{max-width:100%;height:auto;border:1px solid #555}} a{{color:#8cf}} \
         table{{border-collapse:collapse;font-size:90%}} td,th{{padding:2px 6px;border-bottom:1px solid #444;text-align:right}} \
         th{{position:sticky;top:0;background:#333}} tr:target{{background:#454}} .k{{color:#fc8}}</style>\n\
         <h1>{t}</h1>\n<p>{cells} cells, {cols} across by {rows} down; metrics over {secs} s of the clip. \
         Click a cell to find its row; each row links the cell's preset.</p>\n",
        t = escape(&title),
        cells = wedge.cells.len(),
        cols = l.columns,
        rows = l.rows,
        secs = s.seconds,
    );
    let _ = writeln!(
        out,
        "<img src=\"{}\" usemap=\"#cells\" width=\"{}\" height=\"{}\" alt=\"contact sheet\">\n<map name=\"cells\">",
        escape(sheet_src),
        l.width(),
        l.height()
    );
    for (i, cell) in wedge.cells.iter().enumerate() {
        let r = l.cell_rect(i);
        let _ = writeln!(
            out,
            "<area shape=\"rect\" coords=\"{},{},{},{}\" href=\"#cell-{i}\" title=\"{}\" alt=\"cell {i}\">",
            r.x,
            r.y,
            r.x + r.width,
            r.y + r.height,
            escape(&cell.setting.to_string())
        );
    }
    out.push_str("</map>\n");
    films(&mut out, wedge, cells_dir);
    metrics_table(&mut out, wedge, cells_dir);
    out
}

/// The cells' films, when the wedge made them: one grid laid out as the sheet, every film a
/// strip of frames of which a window shows one, all moved together by one timer and one
/// scrubber. Plain files and a few lines of script: the page plays from disk, no server.
fn films(out: &mut String, wedge: &Wedge, cells_dir: &str) {
    let s = &wedge.spec;
    if s.film < 2 || wedge.cells.iter().any(|c| c.film.is_none()) {
        return;
    }
    let (fw, fh) = s.film_size();
    let (n, seconds) = (s.film, wedge.clip_seconds);
    let _ = writeln!(
        out,
        "<h2 id=\"motion\">Motion</h2>\n<p>Each cell's clip ({seconds:.2} s, {n} frames), every cell in step. \
         <button id=\"play\">Pause</button> <input type=\"range\" id=\"scrub\" min=\"0\" \
         max=\"{last}\" value=\"0\" style=\"width:40%\"> <span id=\"time\">0.00 s</span></p>\n\
         <style>.films{{display:grid;gap:4px;grid-template-columns:repeat({cols},{fw}px)}} \
         .film{{width:{fw}px;height:{fh}px;overflow:hidden}} \
         .film img{{max-width:none;border:0;display:block}}</style>\n<div class=\"films\">",
        last = n - 1,
        cols = wedge.layout.columns,
    );
    for i in 0..wedge.cells.len() {
        let src = format!("{cells_dir}/{}", wedge.film_file_name(i));
        let _ = writeln!(
            out,
            "<a class=\"film\" href=\"#cell-{i}\" title=\"{}\"><img src=\"{}\" width=\"{}\" \
             height=\"{fh}\" alt=\"cell {i}'s clip\"></a>",
            escape(&wedge.cells[i].setting.to_string()),
            escape(&src),
            fw as usize * n,
        );
    }
    let _ = writeln!(
        out,
        "</div>\n<script>\n(function () {{\n\
         var n = {n}, fw = {fw}, seconds = {seconds}, k = 0, playing = true;\n\
         var imgs = document.querySelectorAll('.film img');\n\
         var scrub = document.getElementById('scrub'), play = document.getElementById('play');\n\
         var time = document.getElementById('time');\n\
         function show(i) {{\n  k = i; scrub.value = i;\n  \
         time.textContent = (i * seconds / (n - 1)).toFixed(2) + ' s';\n  \
         imgs.forEach(function (img) {{ img.style.marginLeft = (-i * fw) + 'px'; }});\n}}\n\
         scrub.addEventListener('input', function () {{\n  \
         playing = false; play.textContent = 'Play'; show(+scrub.value);\n}});\n\
         play.addEventListener('click', function () {{\n  \
         playing = !playing; play.textContent = playing ? 'Pause' : 'Play';\n}});\n\
         setInterval(function () {{ if (playing) show((k + 1) % n); }}, \
         1000 * seconds / (n - 1));\n\
         }})();\n</script>"
    );
}

/// The table: a row per cell, knob columns first, then every metric in `Metrics`' own order.
fn metrics_table(out: &mut String, wedge: &Wedge, cells_dir: &str) {
    let rows: Vec<Vec<(String, serde_json::Value)>> = wedge
        .cells
        .iter()
        .map(|c| ordered_fields(&c.metrics))
        .collect();
    // The preset and clip are the same in every row (the title says them).
    let skip = |name: &str| name == "preset" || name == "clip";
    out.push_str("<table>\n<tr><th>cell</th>");
    for sweep in &wedge.spec.sweeps {
        let unit = sweep.spec.unit;
        let unit = if unit.is_empty() {
            String::new()
        } else {
            format!(" ({unit})")
        };
        let _ = write!(
            out,
            "<th class=\"k\">{}{}</th>",
            escape(sweep.spec.name),
            escape(&unit)
        );
    }
    out.push_str("<th>preset</th><th>on the sheet (x, y, w, h)</th>");
    for (name, _) in rows.first().into_iter().flatten() {
        if !skip(name) {
            let _ = write!(out, "<th>{}</th>", escape(name));
        }
    }
    out.push_str("</tr>\n");
    for (i, (cell, fields)) in wedge.cells.iter().zip(&rows).enumerate() {
        let _ = write!(out, "<tr id=\"cell-{i}\"><td>{i}</td>");
        for (spec, v) in &cell.setting.0 {
            let _ = write!(
                out,
                "<td class=\"k\">{}</td>",
                escape(&value_text(spec, *v))
            );
        }
        let file = format!("{cells_dir}/{}", wedge.cell_file_name(i));
        let r = wedge.layout.cell_rect(i);
        let _ = write!(
            out,
            "<td><a href=\"{f}\">{f}</a></td><td>{}, {}, {}, {}</td>",
            r.x,
            r.y,
            r.width,
            r.height,
            f = escape(&file)
        );
        for (name, value) in fields {
            if !skip(name) {
                let _ = write!(out, "<td>{}</td>", escape(&metric_text(value)));
            }
        }
        out.push_str("</tr>\n");
    }
    out.push_str(
        "</table>\n<p>Times (<code>_us</code>) were measured while several cells ran at once: \
         compare them with each other, not with <code>simulate</code> run alone.</p>\n",
    );
}

/// A metric as the table shows it: numbers as they are, `None` as a dash.
fn metric_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Null => "–".into(),
        serde_json::Value::Number(n) => match n.as_f64() {
            // Four significant digits: enough to tell cells apart, short enough to scan.
            Some(f) if n.is_f64() && f != 0.0 => {
                let digits = (3 - f.abs().log10().floor() as i32).max(0) as usize;
                format!("{f:.digits$}")
            }
            _ => n.to_string(),
        },
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A value's fields in the order it serialises them (a `serde_json::Value` would sort them),
/// so a new metric shows up in the table, in its place, with no change here.
fn ordered_fields<T: serde::Serialize>(value: &T) -> Vec<(String, serde_json::Value)> {
    struct Ordered(Vec<(String, serde_json::Value)>);
    impl<'de> Deserialize<'de> for Ordered {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct Fields;
            impl<'de> Visitor<'de> for Fields {
                type Value = Ordered;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("an object")
                }
                fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Ordered, A::Error> {
                    let mut fields = Vec::new();
                    while let Some(entry) = map.next_entry()? {
                        fields.push(entry);
                    }
                    Ok(Ordered(fields))
                }
            }
            d.deserialize_map(Fields)
        }
    }
    serde_json::to_string(value)
        .ok()
        .and_then(|text| serde_json::from_str::<Ordered>(&text).ok())
        .map(|o| o.0)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Serialize)]
    struct Three {
        zebra: f32,
        apple: Option<f64>,
        mid: u32,
    }

    #[test]
    fn metrics_keep_their_own_order() {
        let f = ordered_fields(&Three {
            zebra: 1.5,
            apple: None,
            mid: 3,
        });
        let names: Vec<&str> = f.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["zebra", "apple", "mid"]);
        assert_eq!(metric_text(&f[0].1), "1.500");
        assert_eq!(metric_text(&serde_json::json!(0.012345)), "0.01235");
        assert_eq!(metric_text(&serde_json::json!(1234.5678)), "1235");
        assert_eq!(metric_text(&f[1].1), "–");
        assert_eq!(metric_text(&f[2].1), "3");
    }

    #[test]
    fn text_is_escaped() {
        assert_eq!(escape("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
    }
}
