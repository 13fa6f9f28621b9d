//! The character's motion between two steps, as the cloth and the hood feel it: the rigid
//! motion that maps last step's character-space coordinates to this step's, whether it is a
//! cut (a teleport or camera cut, not motion), and the fraction of it a particle keeps in the
//! world. Everything simulated in character space takes world motion through this one rule.

use glam::{Quat, Vec3};

use super::Frame;

/// Character motion above this many metres in one step is a cut (a teleport), not motion: the
/// world-motion offset is skipped for that step.
pub const TELEPORT_DISTANCE: f32 = 2.0;
/// Character turning above this many radians in one step is a cut too.
pub const TELEPORT_ANGLE: f32 = 1.0;

/// The character's rigid motion from one frame to the next, seen from the character.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorldMotion {
    delta: Frame,
}

impl WorldMotion {
    /// The motion from the character's world frame `last` to `now`.
    #[inline]
    pub fn between(last: &Frame, now: &Frame) -> Self {
        Self {
            delta: now.inverse().mul(last),
        }
    }

    /// The rigid motion that maps last step's character-space coordinates to this step's
    /// (rotation normalised).
    pub fn delta(&self) -> Frame {
        self.delta
    }

    /// True when the move is a cut (a teleport), not motion: further than
    /// [`TELEPORT_DISTANCE`] or turned more than [`TELEPORT_ANGLE`] (the angle folded into 0
    /// to pi).
    pub fn is_cut(&self) -> bool {
        let angle = self.delta.rotation.to_axis_angle().1.abs();
        let angle = if angle > std::f32::consts::PI {
            std::f32::consts::TAU - angle
        } else {
            angle
        };
        self.delta.translation.length() > TELEPORT_DISTANCE || angle > TELEPORT_ANGLE
    }

    /// `fraction` of the motion (cut or not: ask [`WorldMotion::is_cut`] first): `None` for
    /// none of it, the motion itself for all of it, else the rotation slerped from identity
    /// and the translation scaled. A particle moved by it (see [`carry`]) keeps that fraction
    /// of its place in the world: 1 leaves it where it was, 0 carries it with the character.
    pub fn fraction(&self, fraction: f32) -> Option<Frame> {
        if fraction <= 0.0 {
            None
        } else if fraction >= 1.0 {
            Some(self.delta)
        } else {
            Some(Frame::new(
                Quat::IDENTITY.slerp(self.delta.rotation, fraction),
                self.delta.translation * fraction,
            ))
        }
    }
}

/// Moves a Verlet particle, its position and its previous position together, by `offset` (a
/// [`WorldMotion::fraction`]): the offset carries the particle's velocity with it and adds
/// none of its own.
#[inline]
pub fn carry(offset: &Frame, pos: &mut Vec3, prev: &mut Vec3) {
    *pos = offset.transform_point(*pos);
    *prev = offset.transform_point(*prev);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fraction_ends() {
        let m = WorldMotion {
            delta: Frame::new(Quat::from_rotation_y(0.5), Vec3::new(1.0, 0.0, 0.0)),
        };
        assert_eq!(m.fraction(0.0), None);
        assert_eq!(m.fraction(1.0), Some(m.delta()));
        let half = m.fraction(0.5).unwrap();
        assert!((half.translation.x - 0.5).abs() < 1e-6);
        assert!((half.rotation.to_axis_angle().1 - 0.25).abs() < 1e-5);
    }

    #[test]
    fn a_cut_is_a_long_jump_or_a_sharp_turn_either_way_round() {
        let at = |rotation: Quat, translation: Vec3| Frame::new(rotation, translation);
        let start = at(Quat::from_rotation_y(0.3), Vec3::new(5.0, 0.0, -2.0));
        let cut = |now: Frame| WorldMotion::between(&start, &now).is_cut();
        // A step's walk and turn: motion.
        assert!(!cut(
            start.mul(&at(Quat::from_rotation_y(0.2), Vec3::Z * 0.05))
        ));
        // Far, or turned far, in either direction: a cut.
        assert!(cut(start.mul(&at(Quat::IDENTITY, Vec3::X * 2.5))));
        assert!(cut(start.mul(&at(Quat::from_rotation_y(1.2), Vec3::ZERO))));
        assert!(cut(start.mul(&at(Quat::from_rotation_y(-1.2), Vec3::ZERO))));
        // Nearly a whole turn is a small turn the other way: motion.
        let almost_round = std::f32::consts::TAU - 0.2;
        assert!(!cut(
            start.mul(&at(Quat::from_rotation_x(almost_round), Vec3::ZERO))
        ));
    }
}
