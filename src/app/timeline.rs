//! The timeline in the playback bar: shows the clip time, and dragging it scrubs (see
//! [`super::playback`] for what a scrub does to the simulation).

use std::time::Duration;

use eframe::egui;
use egui::Ui;

use super::command::Command;
use super::playback::Playback;

/// Wall time a frame may spend fast-forwarding toward a scrubbed time.
pub const SEEK_BUDGET: Duration = Duration::from_millis(30);

/// The timeline: the clip time as a slider; dragging it asks for a scrub.
pub(super) fn timeline(playback: &Playback, ui: &mut Ui, out: &mut Vec<Command>) {
    let (duration, clip_loops) = playback.clip_duration();
    let t = playback.scene().time();
    let in_clip = if clip_loops && duration > 0.0 {
        t % duration
    } else {
        t.min(duration)
    };
    let seeking = playback.seek_progress();
    let before = seeking.map_or(in_clip, |(target, _)| target);
    let mut shown = before;
    let response = ui
        .scope(|ui| {
            ui.spacing_mut().slider_width = 220.0;
            ui.add(
                egui::Slider::new(&mut shown, 0.0..=duration.max(1e-3))
                    .text("Time")
                    .suffix(" s")
                    // Formatted, not rounded: a slider that rounds its value reports a
                    // change every frame, which would scrub (and pause) on its own.
                    .custom_formatter(|v, _| format!("{v:.3}"))
                    .clamping(egui::SliderClamping::Always),
            )
        })
        .inner
        .on_hover_text(format!(
            "Clip time ({duration:.2} s clip; {t:.3} s since the clip start). Drag to \
             scrub: the cloth is re-simulated from the clip start to that time, so the \
             state is the same every time."
        ));
    if response.changed() && shown != before {
        out.push(Command::Seek(shown));
    }
    if let Some((_, p)) = seeking {
        ui.add(
            egui::ProgressBar::new(p as f32)
                .desired_width(90.0)
                .text(format!("seeking {:.0} %", p * 100.0)),
        );
    }
}
