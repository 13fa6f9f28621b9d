//! View > Quality: how many pixels the window's 3D view draws. On a software renderer (Mesa's
//! llvmpipe) the rasteriser is most of a frame, so drawing the 3D view at a fraction of the
//! window's resolution and scaling it up is what keeps live tuning smooth there. Headless
//! pictures (`render`, `regress`) always draw every pixel.

use serde::{Deserialize, Serialize};
use three_d::{
    Blend, Camera, ColorTexture, Context, CopyEffect, DepthTexture2D, Interpolation, RenderTarget,
    ScissorBox, Texture2D, Viewport, Wrapping, WriteMask,
};

/// An RGBA colour texture and a depth texture of `width` x `height` to draw a picture into;
/// `filter` is how the colour is sampled when the picture is shown at another size.
pub fn picture_targets(
    ctx: &Context,
    width: u32,
    height: u32,
    filter: Interpolation,
) -> (Texture2D, DepthTexture2D) {
    let color = Texture2D::new_empty::<[u8; 4]>(
        ctx,
        width,
        height,
        filter,
        filter,
        None,
        Wrapping::ClampToEdge,
        Wrapping::ClampToEdge,
    );
    let depth = DepthTexture2D::new::<f32>(
        ctx,
        width,
        height,
        Wrapping::ClampToEdge,
        Wrapping::ClampToEdge,
    );
    (color, depth)
}

/// How the window's 3D view trades sharpness for speed. Persisted with the window state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Quality {
    /// Full on a graphics card; Fast on a software renderer.
    #[default]
    Automatic,
    /// Every pixel, a 1024 x 1024 shadow map.
    Full,
    /// Three quarters of the resolution, scaled up; the same shadows; the character with
    /// fewer triangles where that moves it by under half a pixel.
    Balanced,
    /// Half the resolution, a 512 x 512 shadow map redrawn every other frame, a matte ground
    /// lit without highlights, the character with fewer triangles where that does not show
    /// and the panels' shapes without anti-aliasing: softer edges, blurrier shadows.
    Fast,
}

impl Quality {
    /// Every level, in menu order.
    pub const ALL: [Quality; 4] = [
        Quality::Automatic,
        Quality::Full,
        Quality::Balanced,
        Quality::Fast,
    ];

    /// The menu entry.
    pub fn label(self) -> &'static str {
        match self {
            Quality::Automatic => "Automatic",
            Quality::Full => "Full",
            Quality::Balanced => "Balanced (3/4 resolution)",
            Quality::Fast => "Fast (1/2 resolution)",
        }
    }

    /// What the level does to the picture.
    pub fn tooltip(self) -> &'static str {
        match self {
            Quality::Automatic => {
                "Full on a graphics card, Fast on a software renderer (no GPU driver)"
            }
            Quality::Full => "Every pixel drawn: the sharpest weave, the slowest on software GL",
            Quality::Balanced => {
                "The 3D view drawn at 3/4 of its size and scaled up: slightly softer edges"
            }
            Quality::Fast => {
                "Half the size, coarser shadows redrawn every other frame, a matte ground and \
                 the panels' shapes without anti-aliasing: soft edges and blurrier shadows, \
                 the fastest on a software renderer"
            }
        }
    }

    /// The level that applies on a renderer (`software`: no GPU driver, see
    /// [`is_software_renderer`]).
    pub fn resolve(self, software: bool) -> Quality {
        match self {
            Quality::Automatic if software => Quality::Fast,
            Quality::Automatic => Quality::Full,
            q => q,
        }
    }

    /// Share of the view's width and height that is drawn.
    pub fn scale(self) -> f32 {
        match self {
            Quality::Automatic | Quality::Full => 1.0,
            Quality::Balanced => 0.75,
            Quality::Fast => 0.5,
        }
    }

    /// While the character moves, its shadow map is redrawn every this many frames: every
    /// frame but at Fast, where every other frame (the shadow may trail the character by a
    /// frame) saves a pass over every vertex of the body and the jacket.
    pub fn shadow_interval(self) -> u32 {
        match self {
            Quality::Fast => 2,
            _ => 1,
        }
    }

    /// Whether the ground is drawn with its cheap diffuse look
    /// ([`super::ground::FloorMaterial`] without highlights): at Fast only.
    pub fn flat_ground(self) -> bool {
        self == Quality::Fast
    }

    /// Whether the body and the jacket are drawn with fewer triangles where that moves them
    /// by under half a pixel ([`super::lod`]): below Full. Full draws every triangle, as
    /// headless pictures do.
    pub fn coarse_meshes(self) -> bool {
        matches!(self, Quality::Balanced | Quality::Fast)
    }

    /// Whether the window's panels draw their shapes (slider knobs, plot traces, frames)
    /// with anti-aliased edges: not at Fast, where that fringe of extra triangles is about a
    /// tenth of the frame on a software renderer. Text is anti-aliased either way.
    pub fn smooth_panels(self) -> bool {
        self != Quality::Fast
    }

    /// Side of the shadow map, texels.
    pub fn shadow_map_size(self) -> u32 {
        match self {
            Quality::Fast => 512,
            _ => 1024,
        }
    }
}

/// Whether a `GL_RENDERER` string names a software rasteriser (Mesa's llvmpipe or softpipe,
/// SwiftShader, Microsoft's GDI fallback).
pub fn is_software_renderer(gl_renderer: &str) -> bool {
    let r = gl_renderer.to_ascii_lowercase();
    [
        "llvmpipe",
        "softpipe",
        "swiftshader",
        "software",
        "gdi generic",
    ]
    .iter()
    .any(|s| r.contains(s))
}

/// The offscreen picture a scaled-down view is drawn into before it is scaled up.
pub struct ScaledView {
    color: Texture2D,
    depth: DepthTexture2D,
    size: (u32, u32),
}

impl ScaledView {
    /// Fills `viewport` of `target` with what `draw` draws (into a target and a viewport),
    /// drawn at `scale` of the viewport's resolution (1: directly) and scaled up; the offscreen
    /// picture is kept in `slot` between frames.
    pub fn draw(
        slot: &mut Option<ScaledView>,
        ctx: &Context,
        target: &RenderTarget,
        viewport: Viewport,
        scale: f32,
        draw: impl FnOnce(&RenderTarget, Viewport),
    ) {
        if scale >= 1.0 || viewport.width == 0 || viewport.height == 0 {
            *slot = None;
            draw(target, viewport);
            return;
        }
        let size = (
            ((viewport.width as f32 * scale).round() as u32).max(1),
            ((viewport.height as f32 * scale).round() as u32).max(1),
        );
        let view = match slot {
            Some(v) if v.size == size => v,
            _ => slot.insert(ScaledView::new(ctx, size)),
        };
        let offscreen = RenderTarget::new(
            view.color.as_color_target(None),
            view.depth.as_depth_target(),
        );
        draw(&offscreen, Viewport::new_at_origo(size.0, size.1));
        target.apply_screen_effect_partially(
            ScissorBox::from(viewport),
            &CopyEffect {
                write_mask: WriteMask::COLOR,
                blend: Blend::Disabled,
            },
            Camera::new_2d(viewport),
            &[],
            Some(ColorTexture::Single(&view.color)),
            None,
        );
    }

    fn new(ctx: &Context, (width, height): (u32, u32)) -> Self {
        // Linear magnification: scaled up, the picture is soft rather than blocky.
        let (color, depth) = picture_targets(ctx, width, height, Interpolation::Linear);
        Self {
            color,
            depth,
            size: (width, height),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn automatic_is_fast_on_software_renderers_and_full_on_graphics_cards() {
        assert!(is_software_renderer("llvmpipe (LLVM 15.0.6, 256 bits)"));
        assert!(is_software_renderer("Gallium 0.4 on softpipe"));
        assert!(!is_software_renderer("NVIDIA H100 80GB HBM3/PCIe/SSE2"));
        assert!(!is_software_renderer(
            "AMD Radeon RX 7900 XTX (radeonsi, navi31)"
        ));
        assert_eq!(Quality::Automatic.resolve(true), Quality::Fast);
        assert_eq!(Quality::Automatic.resolve(false), Quality::Full);
        assert_eq!(Quality::Balanced.resolve(true), Quality::Balanced);
        assert_eq!(Quality::Full.resolve(true).scale(), 1.0);
    }

    #[test]
    fn only_fast_trades_the_shadows_timing_and_the_grounds_highlights_for_speed() {
        // Full and Balanced keep the look of a headless picture: a shadow map every frame
        // and the ground's physical material.
        for q in [Quality::Full, Quality::Balanced] {
            assert_eq!(q.shadow_interval(), 1, "{q:?}");
            assert!(!q.flat_ground(), "{q:?}");
            assert!(q.smooth_panels(), "{q:?}");
        }
        assert!(!Quality::Fast.smooth_panels());
        assert!(!Quality::Full.coarse_meshes(), "Full draws every triangle");
        assert!(Quality::Fast.coarse_meshes() && Quality::Balanced.coarse_meshes());
        assert!(Quality::Fast.shadow_interval() > 1);
        assert!(Quality::Fast.flat_ground());
        assert_eq!(Quality::Automatic.resolve(true), Quality::Fast);
    }
}
