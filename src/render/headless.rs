//! Pictures with no window and no X server: an EGL device display (Mesa's software rasteriser
//! on a machine with no GPU), a surfaceless GL 3.3 context, and a colour + depth texture that
//! [`Renderer::draw`] draws into exactly as it draws the tuner's viewport.

use std::num::NonZeroU32;

use glam::Vec3;
use glutin::api::egl::context::PossiblyCurrentContext;
use glutin::api::egl::device::Device;
use glutin::api::egl::display::Display;
use glutin::config::{ConfigSurfaceTypes, ConfigTemplateBuilder};
use glutin::context::{ContextApi, ContextAttributesBuilder, GlProfile, Version};
use glutin::display::GlDisplay;
use three_d::{DepthTexture2D, Interpolation, RenderTarget, Texture2D, Viewport};

use super::{GarmentView, OrbitCamera, Overlays, Renderer, SceneData, View};
use crate::picture::Rgba;
use crate::scene::motion::ClipMotion;
use crate::scene::Scene;

/// The Debian packages that provide windowless OpenGL.
pub const GL_PACKAGES: &str = "libegl1 libegl-mesa0 libgl1-mesa-dri";

/// Why there is no windowless GL.
#[derive(Debug, thiserror::Error)]
pub enum HeadlessError {
    #[error(
        "no windowless OpenGL: {reason}. On Debian or Ubuntu install it with \
         `apt-get install -y {GL_PACKAGES}`"
    )]
    NoGl { reason: String },
    #[error("the picture size {width}x{height} is out of range (1 to 8192 pixels each way)")]
    Size { width: u32, height: u32 },
}

/// A GL 3.3 context current on this thread with no surface, and three-d on top of it.
/// Not `Send`: use it on the thread that made it.
pub struct HeadlessGl {
    three: three_d::Context,
    // Dropped after `three` (field order): the context must outlive every GL object.
    _context: PossiblyCurrentContext,
    description: String,
}

impl HeadlessGl {
    /// Tries every EGL device (Mesa lists its software rasteriser as one) until one gives a
    /// surfaceless GL 3.3 core context.
    pub fn new() -> Result<Self, HeadlessError> {
        let no_gl = |reason: String| HeadlessError::NoGl { reason };
        let devices = Device::query_devices()
            .map_err(|e| no_gl(format!("cannot list EGL devices ({e})")))?
            .collect::<Vec<_>>();
        if devices.is_empty() {
            return Err(no_gl("EGL lists no device".into()));
        }
        let mut problems = Vec::new();
        for device in &devices {
            let name = device
                .name()
                .or(device.vendor())
                .unwrap_or("unnamed device");
            match Self::on_device(device) {
                Ok((context, three, version)) => {
                    return Ok(Self {
                        three,
                        _context: context,
                        description: format!("{version} on EGL device `{name}`"),
                    })
                }
                Err(e) => problems.push(format!("{name}: {e}")),
            }
        }
        Err(no_gl(problems.join("; ")))
    }

    fn on_device(
        device: &Device,
    ) -> Result<(PossiblyCurrentContext, three_d::Context, String), String> {
        // SAFETY: no raw display handle is passed; the device came from EGL itself.
        let display = unsafe { Display::with_device(device, None) }
            .map_err(|e| format!("no display ({e})"))?;
        let template = ConfigTemplateBuilder::new()
            .with_surface_type(ConfigSurfaceTypes::empty())
            .with_alpha_size(8)
            .with_depth_size(24)
            .build();
        // SAFETY: the template holds no raw window handle.
        let config = unsafe { display.find_configs(template) }
            .map_err(|e| format!("no config ({e})"))?
            .next()
            .ok_or("no config with 8-bit colour and a 24-bit depth")?;
        let attributes = ContextAttributesBuilder::new()
            .with_profile(GlProfile::Core)
            .with_context_api(ContextApi::OpenGl(Some(Version::new(3, 3))))
            .build(None);
        // SAFETY: no raw window handle in the attributes.
        let context = unsafe { display.create_context(&config, &attributes) }
            .map_err(|e| format!("no GL 3.3 core context ({e})"))?
            .make_current_surfaceless()
            .map_err(|e| format!("cannot make the context current without a surface ({e})"))?;
        // SAFETY: the context is current on this thread; the loader returns its functions.
        let gl = unsafe {
            three_d::context::Context::from_loader_function_cstr(|s| display.get_proc_address(s))
        };
        let version = {
            use three_d::context::HasContext;
            // SAFETY: a plain query on the current context.
            unsafe { gl.get_parameter_string(three_d::context::RENDERER) }
        };
        let three = three_d::Context::from_gl_context(std::sync::Arc::new(gl))
            .map_err(|e| format!("three-d cannot use the context ({e})"))?;
        Ok((context, three, version))
    }

    /// The three-d context.
    pub fn context(&self) -> &three_d::Context {
        &self.three
    }

    /// The GL renderer and the EGL device, for logs.
    pub fn description(&self) -> &str {
        &self.description
    }
}

/// Draws scenes into an offscreen colour + depth texture of one size.
pub struct Offscreen {
    renderer: Renderer,
    color: Texture2D,
    depth: DepthTexture2D,
    width: u32,
    height: u32,
}

impl Offscreen {
    /// A renderer and targets of `width` x `height` pixels on `gl`.
    pub fn new(gl: &HeadlessGl, width: u32, height: u32) -> Result<Self, HeadlessError> {
        if !(1..=8192).contains(&width) || !(1..=8192).contains(&height) {
            return Err(HeadlessError::Size { width, height });
        }
        let ctx = gl.context();
        let (color, depth) =
            super::quality::picture_targets(ctx, width, height, Interpolation::Nearest);
        Ok(Self {
            renderer: Renderer::new(ctx),
            color,
            depth,
            width,
            height,
        })
    }

    /// The pictures' width and height, pixels.
    pub fn size(&self) -> (u32, u32) {
        (self.width, self.height)
    }

    /// The renderer, to set how it draws (the window's quality trade-offs) or ask what it drew.
    pub fn renderer_mut(&mut self) -> &mut Renderer {
        &mut self.renderer
    }

    /// Draws `scene` as seen by `camera` and reads the picture back. The renderer forgets
    /// the last scene's meshes and shadow map first, so the picture depends only on this
    /// scene, not on the pictures before it (a kept mesh would fit the shadow map to every
    /// pose it has seen); its textures and materials, made once, are kept.
    pub fn draw(&mut self, camera: &OrbitCamera, scene: &SceneData, overlays: &Overlays) -> Rgba {
        let (w, h) = (self.width, self.height);
        let target = RenderTarget::new(
            self.color.as_color_target(None),
            self.depth.as_depth_target(),
        );
        self.renderer.forget_scene();
        self.renderer.draw(
            &target,
            Viewport::new_at_origo(w, h),
            camera,
            scene,
            overlays,
        );
        // three-d hands the rows back top to bottom already.
        let pixels = target
            .read_color::<[u8; 4]>()
            .into_iter()
            .map(|p| [p[0], p[1], p[2], 255])
            .collect();
        Rgba {
            width: w,
            height: h,
            pixels,
        }
    }
}

/// Where the camera looks from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CameraSpec {
    Front,
    Side,
    Back,
    ThreeQuarter,
    /// Fitted to the garment over the clip ([`GarmentView`]), turning and moving with the
    /// character. `None` until a run of the clip has fitted it ([`CameraSpec::fitted`]); until
    /// then each picture fits the garment as it is at that frame.
    Garment(Option<GarmentView>),
    /// World-space eye and target, metres.
    At {
        eye: Vec3,
        target: Vec3,
    },
}

impl CameraSpec {
    /// Parses `front`, `side`, `back`, `three-quarter`, `garment` or `eye=x,y,z:target=x,y,z`.
    pub fn parse(s: &str) -> Result<Self, String> {
        let s = s.trim();
        match s {
            "front" => return Ok(Self::Front),
            "side" => return Ok(Self::Side),
            "back" => return Ok(Self::Back),
            "three-quarter" | "three_quarter" | "3/4" => return Ok(Self::ThreeQuarter),
            "garment" => return Ok(Self::Garment(None)),
            _ => {}
        }
        let bad = || {
            format!(
                "unknown camera `{s}`: use front, side, back, three-quarter, garment or \
                 eye=x,y,z:target=x,y,z (metres)"
            )
        };
        let (eye, target) = s.split_once(':').ok_or_else(bad)?;
        let point = |part: &str, key: &str| -> Result<Vec3, String> {
            let v = part.strip_prefix(key).ok_or_else(bad)?;
            let n: Vec<f32> = v
                .split(',')
                .map(|x| x.trim().parse::<f32>())
                .collect::<Result<_, _>>()
                .map_err(|e| format!("camera `{s}`: `{v}` is not three numbers ({e})"))?;
            match n[..] {
                [x, y, z] if n.iter().all(|c| c.is_finite()) => Ok(Vec3::new(x, y, z)),
                _ => Err(format!("camera `{s}`: `{v}` is not three finite numbers")),
            }
        };
        let eye = point(eye, "eye=")?;
        let target = point(target, "target=")?;
        if eye.distance(target) < 1e-3 {
            return Err(format!(
                "camera `{s}`: the eye and the target are the same point"
            ));
        }
        Ok(Self::At { eye, target })
    }

    /// A name for file names: `front`, `three-quarter`, or `eye_x_y_z_target_x_y_z`.
    pub fn file_label(&self) -> String {
        match self {
            Self::Front => "front".into(),
            Self::Side => "side".into(),
            Self::Back => "back".into(),
            Self::ThreeQuarter => "three-quarter".into(),
            Self::Garment(_) => "garment".into(),
            Self::At { eye, target } => format!(
                "eye_{}_{}_{}_target_{}_{}_{}",
                eye.x, eye.y, eye.z, target.x, target.y, target.z
            ),
        }
    }

    /// The orbit camera for this view of the character in `scene` (named views follow the
    /// character and face it as it stands at this frame).
    pub fn camera(&self, scene: &Scene) -> OrbitCamera {
        let mut cam = OrbitCamera::default();
        let height = scene.character().height();
        cam.frame_character(height);
        let facing = scene.root().rotation.to_euler(glam::EulerRot::YXZ).0;
        match *self {
            Self::Front => cam.set_view(View::Front, facing),
            Self::Side => cam.set_view(View::Side, facing),
            Self::Back => cam.set_view(View::Back, facing),
            Self::ThreeQuarter => {
                cam.set_view(View::Front, facing);
                cam.yaw += std::f32::consts::FRAC_PI_4;
                cam.pitch = 0.18;
            }
            Self::Garment(view) => {
                let view = view.or_else(|| {
                    let p = scene.cloth().positions();
                    GarmentView::fit(p, &[p], p.len(), GARMENT_ASPECT)
                });
                if let Some(v) = view {
                    cam = v.camera(scene.root().matrix());
                }
            }
            Self::At { eye, target } => cam.look_from(eye, target),
        }
        cam
    }

    /// This camera with a garment view fitted to `motions` (runs of the clip, see
    /// [`crate::scene::motion::ClipMotion`]) for pictures of `width` x `height`; any other
    /// camera, or a garment view already fitted, as it is.
    pub fn fitted(self, motions: &[ClipMotion], width: u32, height: u32) -> Self {
        match self {
            Self::Garment(None) => {
                let outline: Vec<Vec3> = motions
                    .iter()
                    .flat_map(|m| m.outline.iter().copied())
                    .collect();
                let paths: Vec<&[Vec3]> = motions.iter().map(|m| m.path.as_slice()).collect();
                let per_row = motions.first().map_or(1, |m| m.followed);
                let aspect = width as f32 / height.max(1) as f32;
                Self::Garment(GarmentView::fit(&outline, &paths, per_row, aspect))
            }
            other => other,
        }
    }
}

/// The aspect a garment view fitted on one frame assumes (the pictures' usual 16:9).
const GARMENT_ASPECT: f32 = 16.0 / 9.0;

/// The highest frame number a picture may be asked for (10 minutes at 240 Hz).
pub const MAX_FRAME: u64 = 144_000;

/// `width` x `height` from `WxH`.
pub fn parse_size(s: &str) -> Result<(NonZeroU32, NonZeroU32), String> {
    let bad = || format!("size `{s}` is not WIDTHxHEIGHT in pixels (e.g. 1280x720)");
    let (w, h) = s.trim().split_once(['x', 'X']).ok_or_else(bad)?;
    let w: u32 = w.trim().parse().map_err(|_| bad())?;
    let h: u32 = h.trim().parse().map_err(|_| bad())?;
    match (NonZeroU32::new(w), NonZeroU32::new(h)) {
        (Some(w), Some(h)) if w.get() <= 8192 && h.get() <= 8192 => Ok((w, h)),
        _ => Err(format!(
            "size `{s}`: width and height must be 1 to 8192 pixels"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cameras_parse() {
        assert_eq!(CameraSpec::parse("front"), Ok(CameraSpec::Front));
        assert_eq!(
            CameraSpec::parse("three-quarter"),
            Ok(CameraSpec::ThreeQuarter)
        );
        assert_eq!(
            CameraSpec::parse("eye=0,1.5,4:target=0,1,0"),
            Ok(CameraSpec::At {
                eye: Vec3::new(0.0, 1.5, 4.0),
                target: Vec3::new(0.0, 1.0, 0.0)
            })
        );
        assert_eq!(CameraSpec::parse("garment"), Ok(CameraSpec::Garment(None)));
        assert_eq!(CameraSpec::Garment(None).file_label(), "garment");
        assert!(CameraSpec::parse("top").is_err());
        assert!(CameraSpec::parse("eye=0,1:target=0,1,0").is_err());
        assert!(CameraSpec::parse("eye=1,1,1:target=1,1,1").is_err());
    }

    #[test]
    fn an_explicit_camera_puts_the_eye_where_asked() {
        let cam_spec = CameraSpec::At {
            eye: Vec3::new(1.0, 2.0, 3.0),
            target: Vec3::new(0.0, 1.0, 0.0),
        };
        let scene = Scene::new(
            std::sync::Arc::new(crate::character::Character::builtin()),
            &crate::preset::Preset::default(),
            "idle",
        )
        .unwrap();
        let cam = cam_spec.camera(&scene);
        assert!(
            cam.eye(Vec3::new(5.0, 0.0, 5.0))
                .distance(Vec3::new(1.0, 2.0, 3.0))
                < 1e-4
        );
    }

    #[test]
    fn sizes_parse() {
        let (w, h) = parse_size("480x270").unwrap();
        assert_eq!((w.get(), h.get()), (480, 270));
        assert!(parse_size("480").is_err());
        assert!(parse_size("0x10").is_err());
        assert!(parse_size("axb").is_err());
    }
}
