//! The fabric parameters: every knob a technical artist tunes, with its unit, range, default and
//! what it does to the look, in one table ([`FabricParams::SPECS`]) that the sliders and the
//! preset validator share.

use serde::{Deserialize, Serialize};

/// How the panel groups the knobs, in the order an artist thinks about them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParamGroup {
    /// Time step, iterations, gravity.
    Solver,
    /// Damping in the air and on the body.
    Damping,
    /// Stretch and shear/bend stiffness, mass falloff, hard constraints, deformation limit.
    Stiffness,
    /// The edge particles' own damping, wind, world motion and max distance.
    Edges,
    /// Wind and gusts.
    Wind,
    /// The fraction of the character's world motion fed into the cloth.
    WorldMotion,
    /// How far particles may leave the skinned pose.
    MaxDistance,
    /// The gap kept to the colliders.
    Collision,
    /// The hooded jacket's hood pendulum: its damping, its pull toward the rest pose, its
    /// swing limit.
    Hood,
}

impl ParamGroup {
    /// Every group, in display order.
    pub const ALL: [ParamGroup; 9] = [
        ParamGroup::Solver,
        ParamGroup::Damping,
        ParamGroup::Stiffness,
        ParamGroup::Edges,
        ParamGroup::Wind,
        ParamGroup::WorldMotion,
        ParamGroup::MaxDistance,
        ParamGroup::Collision,
        ParamGroup::Hood,
    ];

    /// The heading shown above the group.
    pub fn title(self) -> &'static str {
        match self {
            ParamGroup::Solver => "Solver",
            ParamGroup::Damping => "Damping",
            ParamGroup::Stiffness => "Stiffness",
            ParamGroup::Edges => "Edges",
            ParamGroup::Wind => "Wind",
            ParamGroup::WorldMotion => "World motion",
            ParamGroup::MaxDistance => "Max distance",
            ParamGroup::Collision => "Collision",
            ParamGroup::Hood => "Hood",
        }
    }
}

/// The kind of value a parameter holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// A real number.
    Float,
    /// A whole number.
    Int,
    /// On or off (`min` 0, `max` 1).
    Bool,
}

/// A handle on one field of [`FabricParams`], to edit it in place (a slider, a checkbox).
#[derive(Debug, PartialEq)]
pub enum ParamMut<'a> {
    /// A real number.
    Float(&'a mut f32),
    /// A whole number.
    Int(&'a mut u32),
    /// On or off.
    Bool(&'a mut bool),
}

/// Everything the UI and the validator need to know about one parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ParamSpec {
    /// The field's name in Rust and in the preset file.
    pub name: &'static str,
    /// The slider's label.
    pub label: &'static str,
    /// The unit shown after the value ("" for a plain ratio).
    pub unit: &'static str,
    /// Smallest allowed value.
    pub min: f64,
    /// Largest allowed value.
    pub max: f64,
    /// For a knob that `min` turns off (tearing): the smallest value that turns it on. Values
    /// between `min` and this are refused, and continuous inputs (a slider's drag, a fit's
    /// step, a sweep's spread) land on the nearer of the two ([`ParamSpec::snap`]).
    pub on_from: Option<f64>,
    /// The value a new preset starts with.
    pub default: f64,
    /// Float, whole number or switch.
    pub kind: ParamKind,
    /// Where the knob sits in the panel.
    pub group: ParamGroup,
    /// What moving the knob does to the look.
    pub tooltip: &'static str,
}

impl ParamSpec {
    /// The allowed range written for a person: "0 to 1 per step".
    pub fn range_text(&self) -> String {
        match self.kind {
            ParamKind::Bool => "true or false".to_string(),
            _ if self.unit.is_empty() => self.bounds_text(),
            _ => format!("{} {}", self.bounds_text(), self.unit),
        }
    }

    /// The bounds without the unit: "0 to 1", "0 (off) or 1.1 to 5", "on/off".
    pub fn bounds_text(&self) -> String {
        match (self.kind, self.on_from) {
            (ParamKind::Bool, _) => "on/off".to_string(),
            // Floats print through f32 so 0.05 reads "0.05", not its f64 widening.
            (ParamKind::Float, Some(on)) => format!(
                "{} (off) or {} to {}",
                self.min as f32, on as f32, self.max as f32
            ),
            (ParamKind::Float, None) => format!("{} to {}", self.min as f32, self.max as f32),
            (ParamKind::Int, _) => format!("{} to {}", self.min, self.max),
        }
    }

    /// True when `v` is finite and inside `[min, max]` (and whole, for whole numbers), and not
    /// between the off value and [`ParamSpec::on_from`].
    pub fn accepts(&self, v: f64) -> bool {
        v.is_finite()
            && v >= self.min
            && v <= self.max
            && (self.kind != ParamKind::Int || v.fract() == 0.0)
            && !self.in_gap(v)
    }

    /// `v` as a person wrote it: a float field's value through its f32, so a file's 0.0489
    /// reads 0.0489 in a message rather than its widening 0.048900000751018524.
    pub fn as_written(&self, v: f64) -> f64 {
        match self.kind {
            ParamKind::Float if v.is_finite() => format!("{}", v as f32).parse().unwrap_or(v),
            _ => v,
        }
    }

    /// `v` out of the refused stretch between the off value and [`ParamSpec::on_from`], to
    /// whichever end is nearer (the upper on a tie); any other value as it is.
    pub fn snap(&self, v: f64) -> f64 {
        match self.on_from {
            Some(on) if self.in_gap(v) => {
                if v - self.min < on - v {
                    self.min
                } else {
                    on
                }
            }
            _ => v,
        }
    }

    /// Whether `v` lies strictly between the off value and [`ParamSpec::on_from`]; compared
    /// as the field's f32 stores it, so the bound itself is never refused.
    pub fn in_gap(&self, v: f64) -> bool {
        self.on_from
            .is_some_and(|on| v as f32 > self.min as f32 && (v as f32) < on as f32)
    }
}

/// A parameter value that can be read and written through the shared table as `f64`.
pub trait ParamValue: Copy {
    /// The value as `f64` (a switch reads 0 or 1).
    fn to_f64(self) -> f64;
    /// The value from `f64` (whole numbers round, switches are on from 0.5).
    fn from_f64(v: f64) -> Self;
}

impl ParamValue for f32 {
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn from_f64(v: f64) -> Self {
        v as f32
    }
}

impl ParamValue for u32 {
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn from_f64(v: f64) -> Self {
        if v.is_finite() && v > 0.0 {
            v.round().min(u32::MAX as f64) as u32
        } else {
            0
        }
    }
}

impl ParamValue for bool {
    fn to_f64(self) -> f64 {
        if self {
            1.0
        } else {
            0.0
        }
    }
    fn from_f64(v: f64) -> Self {
        v >= 0.5
    }
}

macro_rules! fabric_params {
    ($(
        $(#[doc = $doc:literal])*
        $name:ident : $ty:ty = $default:expr,
            $kind:ident, $min:expr, $max:expr, $unit:tt, $group:ident, $label:literal,
            $tip:literal $(, on from $on:expr)?;
    )*) => {
        /// The fabric: every knob of the cloth, applied live on the next step.
        ///
        /// Values only hold together with [`FabricParams::timestep_hz`]: the damping and the
        /// stiffness act per step and per relaxation pass.
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        #[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
        #[cfg_attr(feature = "schema", schemars(transform = schema_ranges))]
        #[serde(default, deny_unknown_fields)]
        pub struct FabricParams {
            $(
                $(#[doc = $doc])*
                #[doc = fabric_params!(@doc $kind, $min, $max, $unit, $default)]
                pub $name: $ty,
            )*
        }

        impl Default for FabricParams {
            fn default() -> Self {
                Self { $($name: $default,)* }
            }
        }

        impl FabricParams {
            /// Unit, range, default, group and tooltip of every field, in declaration order.
            pub const SPECS: &'static [ParamSpec] = &[
                $(ParamSpec {
                    name: stringify!($name),
                    label: $label,
                    unit: $unit,
                    min: fabric_params!(@num $kind $min),
                    max: fabric_params!(@num $kind $max),
                    on_from: fabric_params!(@on $kind $($on)?),
                    default: fabric_params!(@num $kind $default),
                    kind: ParamKind::$kind,
                    group: ParamGroup::$group,
                    tooltip: $tip,
                },)*
            ];

            /// Reads a field by name as `f64` (switches read 0 or 1).
            pub fn get(&self, name: &str) -> Option<f64> {
                match name {
                    $(stringify!($name) => Some(ParamValue::to_f64(self.$name)),)*
                    _ => None,
                }
            }

            /// Writes a field by name from `f64`; returns false for an unknown name. The value
            /// is not range-checked here: see [`FabricParams::validate`].
            pub fn set(&mut self, name: &str, value: f64) -> bool {
                match name {
                    $(stringify!($name) => { self.$name = ParamValue::from_f64(value); true })*
                    _ => false,
                }
            }

            /// Every field with its table entry and a handle to change it, in declaration
            /// order: a widget per knob with nothing to keep in step by hand.
            pub fn knobs_mut(&mut self) -> Vec<(&'static ParamSpec, ParamMut<'_>)> {
                let mut specs = Self::SPECS.iter();
                let mut out = Vec::with_capacity(Self::SPECS.len());
                $(
                    if let Some(spec) = specs.next() {
                        out.push((spec, ParamMut::$kind(&mut self.$name)));
                    }
                )*
                out
            }
        }
    };
    // The range and default sentence of each field's doc comment, from the same table row.
    (@doc Bool, $min:expr, $max:expr, $unit:tt, $default:expr) => {
        concat!("On or off, default ", stringify!($default), ".")
    };
    (@doc $kind:ident, $min:expr, $max:expr, "", $default:expr) => {
        concat!("Range ", stringify!($min), " to ", stringify!($max), ", default ",
            stringify!($default), ".")
    };
    (@doc $kind:ident, $min:expr, $max:expr, $unit:tt, $default:expr) => {
        concat!("Range ", stringify!($min), " to ", stringify!($max), " ", $unit, ", default ",
            stringify!($default), ".")
    };
    // Bounds and defaults go through the field's own type, so an f32 field's value compares
    // equal to its bound (0.05_f32 as f64 is not 0.05_f64).
    (@num Float $v:expr) => { ($v as f32) as f64 };
    (@num Int $v:expr) => { ($v as u32) as f64 };
    (@num Bool $v:expr) => { ($v as u8) as f64 };
    (@on $kind:ident) => { None };
    (@on $kind:ident $v:expr) => { Some(fabric_params!(@num $kind $v)) };
}

fabric_params! {
    /// Fixed simulation rate in steps per second (Hz). Every per-step value below (damping,
    /// stiffness, iterations) was tuned at this rate.
    timestep_hz: f32 = 60.0, Float, 15, 240, "Hz", Solver, "Time step",
        "Steps per second. Higher is stiffer and stretches less for the same knobs, and costs more. Retune (or convert) the fabric after changing it.";
    /// Relaxation passes over the stretch and shear/bend constraints per step.
    iterations: u32 = 4, Int, 0, 32, "passes", Solver, "Iterations",
        "More passes make the fabric hold its shape and stretch less (less rubbery), at a cost in time per step.";
    /// Solver steps inside each fixed step, the character's motion interpolated between them. A
    /// preset converted to a lower rate runs the rate it was tuned at inside each of the engine's
    /// steps (60 Hz tuned, 30 Hz engine: 2).
    substeps: u32 = 1, Int, 1, 8, "per step", Solver, "Substeps",
        "Solver steps inside each fixed step. The shipped presets use 2 (a 120 Hz solver at 60 Hz), so converted to 120, 30 or 15 Hz they keep the very same solver and look. Each substep costs a whole step.";
    /// Downward acceleration in m/s².
    gravity: f32 = 9.81, Float, 0, 50, "m/s²", Solver, "Gravity",
        "How hard the fabric is pulled down. Raise it to make a fabric read heavier without slowing its swing.";
    /// Mass of one square metre of the fabric in grams (g/m²). The engine exports and the
    /// garment's total mass read it: each particle's mass is its share of the garment's area
    /// times this, weighted by `mass_falloff` ([`crate::sim::mass`]). Our solver's motion does
    /// not depend on it (it uses `mass_falloff`'s ratios alone). A file without it loads with
    /// the default, 300 g/m², a mid-weight woven fabric.
    areal_density_gsm: f32 = 300.0, Float, 10, 2000, "g/m²", Solver, "Areal density",
        "How heavy the fabric is per square metre: veil or chiffon 30 to 60, shirt cotton 120 to 150, a down jacket's shell with its fill 200 to 300, tweed 350 to 450, heavy coat wool 500 to 700. Sets the garment's mass in kilograms for the engine exports and the total shown below; the motion here does not change.";
    /// Fraction of a particle's velocity removed each step (interior particles).
    damping: f32 = 0.02, Float, 0, 1, "per step", Damping, "Damping",
        "Low: heavy fabric that keeps swinging after a move (tweed). High: light fabric that settles slowly and softly (veil).";
    /// Damping used instead of `damping` for a particle that touched a collider on the previous
    /// step: the friction between jacket and shirt.
    contact_damping: f32 = 0.2, Float, 0, 1, "per step", Damping, "Contact damping (friction)",
        "Damping while the fabric lies on the body. Higher makes the jacket calm and sticky when walking and lets it fly only when it lifts off in a dodge or jump.";
    /// Stiffness of the stretch constraints (immediate neighbours) per pass: 1 rigid, 0 no
    /// resistance.
    stretch_stiffness: f32 = 1.0, Float, 0, 1, "", Stiffness, "Stretch stiffness",
        "How firmly neighbouring points keep their distance. Below 1 the fabric stretches like knit or rubber.";
    /// Stiffness of the shear (diagonal) and bend (two-apart) constraints per pass: 1 rigid, 0
    /// bends freely.
    shear_bend_stiffness: f32 = 0.3, Float, 0, 1, "", Stiffness, "Shear/bend stiffness",
        "How much the fabric resists folding and shearing. Low: soft folds, drapes like silk. High: holds its shape like a thick coat or a board.";
    /// Mass ratio between a row and the row below it (the trick of "Cloth Physics in K.I.S.A"): rows near the attachment
    /// are heavier, so one pass stretches less. 1 is uniform; the article's skirt uses 2000.
    mass_falloff: f32 = 1.0, Float, 1, 2000, "x per row", Stiffness, "Mass falloff",
        "Above 1 the upper rows are heavier than the hem, so the constraints pull the hem up to the shoulders instead of dragging the shoulders down: less sag for the same passes.";
    /// Run the top-down hard constraint pass last, so every column keeps its rest length from the
    /// top row to the hem.
    hard_constraints: bool = true, Bool, 0, 1, "", Stiffness, "Hard constraints",
        "On: the fabric never stretches vertically, the single biggest step from rubber to tweed. Off: it sags and bounces under its own weight.";
    /// Apply Provot's deformation limit: no constraint stretches past `max_stretch_ratio` of its
    /// rest length.
    deformation_limit: bool = false, Bool, 0, 1, "", Stiffness, "Deformation limit",
        "Caps how far any edge of the mesh may stretch, sideways too. Stops a rubbery look without more iterations.";
    /// Longest a constraint may get, as a multiple of its rest length, when `deformation_limit` is
    /// on.
    max_stretch_ratio: f32 = 1.1, Float, 1, 2, "x rest", Stiffness, "Max stretch ratio",
        "With the deformation limit on: 1.0 allows no stretch at all, 1.1 allows ten percent.";
    /// Damping of the edge particles (hem and front opening) instead of `damping`.
    edge_damping: f32 = 0.01, Float, 0, 1, "per step", Edges, "Edge damping",
        "Lower than the base damping gives the hem and the front edges a livelier secondary motion of their own.";
    /// Multiplier on the wind acting on edge particles (the body shields the interior).
    edge_wind_scale: f32 = 1.5, Float, 0, 5, "x", Edges, "Edge wind",
        "How much more the wind catches the hem and the open front than the middle of the back.";
    /// World-motion fraction of the edge particles instead of `world_motion_fraction`.
    edge_world_motion_fraction: f32 = 0.35, Float, 0, 1, "", Edges, "Edge world motion",
        "How much the edges lag behind the character's running and turning. Higher: the hem flares more than the body of the jacket.";
    /// Multiplier on the max distance of edge particles.
    edge_max_distance_scale: f32 = 1.3, Float, 1, 4, "x", Edges, "Edge max distance",
        "Lets the hem and the front edges swing further from the body than the interior.";
    /// Wind direction in the world's horizontal plane, in degrees: 0 blows toward +Z (the
    /// character's initial facing), 90 toward +X.
    wind_direction_deg: f32 = 0.0, Float, 0, 360, "°", Wind, "Wind direction",
        "Where the wind blows to, around the vertical axis. 0 pushes toward the character's front, 180 toward the back.";
    /// Mean wind speed in m/s.
    wind_speed: f32 = 0.0, Float, 0, 100, "m/s", Wind, "Wind speed",
        "A breeze is 2 to 5 m/s, a gale above 15. The fabric's response depends on its drag.";
    /// How strongly this fabric catches the wind: acceleration per (m/s)² of wind on a surface
    /// facing it at its rest area (air density x drag coefficient / (2 x areal density)); cloth
    /// stretched to more area catches more, in proportion.
    wind_drag: f32 = 1.5, Float, 0, 50, "1/m", Wind, "Wind drag",
        "Light fabrics (veil, silk) catch the wind strongly: 5 to 30. Heavy wool 1 to 2. Padded down below 1. Stretched cloth catches more, with its area. The same air calms the flapping it causes.";
    /// Gust strength as a fraction of the mean speed. Gust fronts travel downwind across the
    /// cloth with smaller eddies on them, so the wind differs from place to place on the cloth.
    gust_amplitude: f32 = 0.3, Float, 0, 1, "x speed", Wind, "Gust amplitude",
        "How much the wind speed varies around its mean, over time and from place to place on the cloth. 0 is a steady wind.";
    /// How often gusts come, in Hz; the eddies on them are 3.1 times as quick.
    gust_frequency: f32 = 0.5, Float, 0, 5, "Hz", Wind, "Gust frequency",
        "Slow rolling gusts below 0.5 Hz, nervous flutter above 2. The eddies on the gusts are three times as quick.";
    /// Fraction of the character's world motion (translation and turning) fed into the cloth: 0 the
    /// cloth is glued to the character's frame, 1 it behaves as a world-space simulation.
    world_motion_fraction: f32 = 0.2, Float, 0, 1, "", WorldMotion, "World motion",
        "How much the jacket lags when the character runs, stops or turns. Remedy liked 0.1 to 0.3: all of the body's own motion plus a little of the world's.";
    /// Max distance from the reference pose at the top row, in metres.
    max_distance_top: f32 = 0.02, Float, 0, 1, "m", MaxDistance, "Max distance at top",
        "How far the fabric near the shoulders may leave its skinned pose.";
    /// Max distance from the reference pose at the hem, in metres.
    max_distance_hem: f32 = 0.35, Float, 0, 1, "m", MaxDistance, "Max distance at hem",
        "How far the hem may swing away from the body. Past about 0.4 m knots and clipping start to appear.";
    /// Shape of the max distance from top (row 0) to hem: `top + (hem - top) * t^exponent`, with t
    /// the row's fraction of the way down.
    max_distance_exponent: f32 = 1.5, Float, 0.25, 4, "", MaxDistance, "Max distance curve",
        "Above 1 the freedom stays small down the chest and opens up near the hem; below 1 the whole jacket loosens early.";
    // The hood's knobs sit before the collision margin only so that a preset file gains them
    // as added lines; the panel and the tables list them in their own group, last.
    /// Fraction of the hood pendulum's velocity removed each solver step (`contact_damping`
    /// instead after a step in which the hood touched the head or shoulders). A preset file
    /// without this field takes its `damping` (the hood used the cloth's damping before it had
    /// its own).
    hood_damping: f32 = 0.02, Float, 0, 1, "per step", Hood, "Hood damping",
        "Only affects the hooded jacket's hood. Low: the hood keeps swinging after a stop, a turn or a jump. High: it settles at once, like a heavy or padded hood.";
    /// Fraction of the way the hood pendulum is pulled toward its rest pose (hanging on the
    /// back, carried by the neck) each solver step: 0 hangs freely under gravity, 1 moves rigidly
    /// with the neck.
    hood_stiffness: f32 = 0.0, Float, 0, 1, "per step", Hood, "Hood stiffness",
        "Only affects the hooded jacket's hood. 0: the hood only hangs and swings under gravity. Higher: it springs back to lie on the back, like a stiff or padded hood; 1 moves it rigidly with the neck.";
    /// Largest angle between the hood pendulum and its rest pose, in degrees; 180 is no limit.
    hood_swing_limit_deg: f32 = 180.0, Float, 0, 180, "°", Hood, "Hood swing limit",
        "Only affects the hooded jacket's hood. How far the hood may swing away from lying on the back. 180 is no limit; 30 to 60 keeps it on the shoulders in a sharp stop or a jump.";
    /// Thickness kept between the fabric and the colliders, in metres.
    collision_margin: f32 = 0.01, Float, 0, 0.05, "m", Collision, "Collision margin",
        "Gap between the body and the fabric (and between the hood and the head and shoulders). Raise it if the body pokes through the render mesh, lower it if the jacket floats.";
    /// A link (stretch, shear or bend) stretched past this multiple of its rest length during a
    /// step tears: it leaves the solve until the cloth is reset (`docs/preset-format.md`,
    /// "Tearing", says what goes with it). 0 turns tearing off; below 1.1 every link at rest
    /// length or near it would tear at once, so values between 0 and 1.1 are refused.
    tear_ratio: f32 = 0.0, Float, 0, 5, "x rest", Stiffness, "Tear ratio",
        "0: the fabric never tears. 1.1 to 5: a link pulled past this many times its rest length rips, and the jacket opens there in a slit or a hole (Reset mends it). Low values rip at the first hard tug, high ones only when snagged.",
        on from 1.1;
}

impl FabricParams {
    /// The table entry for a field.
    pub fn spec(name: &str) -> Option<&'static ParamSpec> {
        Self::SPECS.iter().find(|s| s.name == name)
    }

    /// The parameter reference as a Markdown table (group, field, unit, range, default, what it
    /// does to the look), generated from [`FabricParams::SPECS`]: `docs/fabrics.md` and
    /// `docs/preset-format.md` hold this text, and `cloth-tuner params` prints it.
    pub fn reference_table() -> String {
        let mut out = String::from("| group | field | unit | range | default | what it does to the look |\n|---|---|---|---|---|---|\n");
        for group in ParamGroup::ALL {
            for s in Self::SPECS.iter().filter(|s| s.group == group) {
                let default = match s.kind {
                    ParamKind::Bool => (s.default != 0.0).to_string(),
                    ParamKind::Int => format!("{}", s.default),
                    ParamKind::Float => format!("{}", s.default as f32),
                };
                let range = s.bounds_text();
                out.push_str(&format!(
                    "| {} | `{}` | {} | {} | {} | {} |\n",
                    group.title(),
                    s.name,
                    s.unit,
                    range,
                    default,
                    s.tooltip
                ));
            }
        }
        out
    }

    /// The fixed step in seconds.
    pub fn dt(&self) -> f32 {
        1.0 / self.timestep_hz
    }

    /// One solver step in seconds: the fixed step over `substeps`. The per-step knobs (dampings,
    /// stiffnesses) act once per solver step.
    pub fn solver_dt(&self) -> f32 {
        1.0 / (self.timestep_hz * self.substeps.max(1) as f32)
    }

    /// The max distance (metres) of a particle `row_fraction` of the way from the top row (0)
    /// to the hem (1): `top + (hem - top) * t^exponent`, times the edge scale for an edge
    /// particle. The solver and the engine exports both read it here, so they cannot disagree.
    pub fn max_distance_at(&self, row_fraction: f32, edge: bool) -> f32 {
        let d = self.max_distance_top
            + (self.max_distance_hem - self.max_distance_top)
                * row_fraction.powf(self.max_distance_exponent);
        if edge {
            d * self.edge_max_distance_scale
        } else {
            d
        }
    }

    /// The inverse mass of a particle in `row` of a `rows`-row grid: 0 when pinned, 1 at the
    /// hem, divided by `mass_falloff` for every row above it (the heavier upper rows of "Cloth Physics in K.I.S.A").
    pub fn inv_mass_at(&self, row: usize, rows: usize, pinned: bool) -> f32 {
        if pinned {
            0.0
        } else {
            // Never 0 (which reads as pinned): 2000 per row underflows f32 after 12 rows.
            self.mass_falloff
                .powi(-((rows - 1 - row) as i32))
                .max(f32::MIN_POSITIVE)
        }
    }

    /// Every field that is out of its range or not finite, with its spec and value (as written,
    /// [`ParamSpec::as_written`]).
    pub fn out_of_range(&self) -> Vec<(&'static ParamSpec, f64)> {
        Self::SPECS
            .iter()
            .filter_map(|s| {
                let v = self.get(s.name)?;
                (!s.accepts(v)).then_some((s, s.as_written(v)))
            })
            .collect()
    }

    /// Ok when every field is finite and in range; otherwise the first offender.
    pub fn validate(&self) -> Result<(), ParamError> {
        match self.out_of_range().first() {
            None => Ok(()),
            Some((spec, v)) => Err(ParamError {
                field: spec.name,
                value: *v,
                range: spec.range_text(),
            }),
        }
    }

    /// Where the knobs contradict the article's fabric (valid, but probably not meant): the
    /// edges damped more than the body (they should be livelier, so hem and front edges
    /// flutter), or contact damping below the base damping (touching the body should calm the
    /// cloth while walking, not make it livelier). One sentence per contradiction.
    pub fn article_departures(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.edge_damping > self.damping {
            out.push(format!(
                "edge_damping {} is above damping {}: the article damps the edges less than \
                 the body, so the hem and front edges stay livelier",
                self.edge_damping, self.damping
            ));
        }
        if self.contact_damping < self.damping {
            out.push(format!(
                "contact_damping {} is below damping {}: the article damps cloth touching the \
                 body more, so it stays calm while walking",
                self.contact_damping, self.damping
            ));
        }
        out
    }

    /// A copy with every field pulled into its range (non-finite values take the default).
    pub fn clamped(&self) -> Self {
        let mut out = self.clone();
        for s in Self::SPECS {
            let v = self.get(s.name).unwrap_or(s.default);
            let v = if v.is_finite() {
                s.snap(v.clamp(s.min, s.max))
            } else {
                s.default
            };
            out.set(s.name, v);
        }
        out
    }
}

/// Writes every field's range from [`FabricParams::SPECS`] into the generated JSON Schema as
/// `minimum` / `maximum`, so the table stays the one source of truth.
#[cfg(feature = "schema")]
fn schema_ranges(schema: &mut schemars::Schema) {
    let Some(props) = schema.get_mut("properties").and_then(|p| p.as_object_mut()) else {
        return;
    };
    for spec in FabricParams::SPECS {
        let Some(prop) = props.get_mut(spec.name).and_then(|p| p.as_object_mut()) else {
            continue;
        };
        if spec.kind == ParamKind::Bool {
            continue;
        }
        prop.insert("default".into(), schema_number(spec, spec.default));
        prop.insert("minimum".into(), schema_number(spec, spec.min));
        prop.insert("maximum".into(), schema_number(spec, spec.max));
        if let Some(on) = spec.on_from {
            // Off at the minimum, on from `on`: nothing strictly between.
            let gap = serde_json::json!({
                "exclusiveMinimum": schema_number(spec, spec.min),
                "exclusiveMaximum": schema_number(spec, on),
            });
            prop.insert("not".into(), gap);
        }
    }
}

/// A bound as the JSON number a person would write: floats through their `f32` text, so 0.05
/// appears as 0.05 and not as its `f64` widening.
#[cfg(feature = "schema")]
fn schema_number(spec: &ParamSpec, v: f64) -> serde_json::Value {
    match spec.kind {
        ParamKind::Int => serde_json::Value::from(v as u64),
        _ => format!("{}", v as f32)
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map_or(serde_json::Value::Null, serde_json::Value::Number),
    }
}

/// A parameter value outside its allowed range.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("`{field}` is {value}, allowed range is {range}")]
pub struct ParamError {
    /// The field's name.
    pub field: &'static str,
    /// The offending value.
    pub value: f64,
    /// The allowed range, with unit.
    pub range: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_default_is_inside_its_own_range() {
        let p = FabricParams::default();
        for s in FabricParams::SPECS {
            let v = p.get(s.name).unwrap();
            assert!(
                s.accepts(v),
                "{} default {} outside {}",
                s.name,
                v,
                s.range_text()
            );
            assert_eq!(
                v, s.default,
                "{}: table default differs from Default",
                s.name
            );
        }
        assert!(p.validate().is_ok());
    }

    #[test]
    fn a_tear_ratio_that_would_tear_every_link_at_rest_is_refused_and_snapped_off_or_on() {
        let spec = FabricParams::spec("tear_ratio").unwrap();
        let mut p = FabricParams {
            tear_ratio: 0.5,
            ..FabricParams::default()
        };
        let e = p.validate().unwrap_err();
        assert_eq!(
            e.to_string(),
            "`tear_ratio` is 0.5, allowed range is 0 (off) or 1.1 to 5 x rest"
        );
        // The value as the file wrote it, not its f32's widening.
        p.tear_ratio = 0.0489;
        let e = p.validate().unwrap_err().to_string();
        assert!(e.starts_with("`tear_ratio` is 0.0489, allowed"), "{e}");
        for ok in [0.0, 1.1, 1.3, 5.0] {
            p.tear_ratio = ok;
            assert!(p.validate().is_ok(), "{ok}");
        }
        for refused in [1e-6, 1.0, 1.0999] {
            assert!(!spec.accepts(refused), "{refused}");
        }
        // A drag, a fit's step or a sweep lands on the nearer end of the refused stretch.
        assert_eq!(spec.snap(0.3), 0.0);
        assert_eq!(spec.snap(0.8) as f32, 1.1);
        assert_eq!(spec.snap(2.0), 2.0);
        p.tear_ratio = 0.5;
        assert_eq!(p.clamped().tear_ratio, 0.0);
        // Other knobs have no gap.
        let damping = FabricParams::spec("damping").unwrap();
        assert_eq!((damping.on_from, damping.snap(0.001)), (None, 0.001));
    }

    #[test]
    fn table_names_match_serialized_fields() {
        let json = serde_json::to_value(FabricParams::default()).unwrap();
        let obj = json.as_object().unwrap();
        assert_eq!(obj.len(), FabricParams::SPECS.len());
        for s in FabricParams::SPECS {
            assert!(obj.contains_key(s.name), "{} missing from JSON", s.name);
            assert!(!s.tooltip.is_empty() && !s.label.is_empty());
        }
    }

    #[test]
    fn validate_names_field_and_range() {
        let p = FabricParams {
            damping: 1.5,
            ..Default::default()
        };
        let e = p.validate().unwrap_err();
        assert_eq!(e.field, "damping");
        assert_eq!(
            e.to_string(),
            "`damping` is 1.5, allowed range is 0 to 1 per step"
        );
        let p = FabricParams {
            gravity: f32::NAN,
            ..Default::default()
        };
        assert_eq!(p.validate().unwrap_err().field, "gravity");
        assert!(p.clamped().validate().is_ok());
        assert_eq!(p.clamped().gravity, 9.81);
    }

    #[test]
    fn get_and_set_by_name() {
        let mut p = FabricParams::default();
        assert!(p.set("iterations", 7.0));
        assert_eq!(p.iterations, 7);
        assert!(p.set("hard_constraints", 0.0));
        assert!(!p.hard_constraints);
        assert!(!p.set("no_such_knob", 1.0));
        assert_eq!(p.get("no_such_knob"), None);
    }
}
