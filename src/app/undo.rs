//! Undo and redo of what the artist edits (see `document::Edits`). One gesture
//! (a slider drag from press to release) is one step, however many frames it changes the value
//! in.

use crate::sim::FabricParams;

/// The undo history of values of `T`.
#[derive(Clone, Debug)]
pub struct Undo<T = FabricParams> {
    past: Vec<T>,
    future: Vec<T>,
    /// The value before the gesture in progress.
    gesture: Option<T>,
}

impl<T> Default for Undo<T> {
    fn default() -> Self {
        Self {
            past: Vec::new(),
            future: Vec::new(),
            gesture: None,
        }
    }
}

/// How many steps are kept.
const LIMIT: usize = 200;

impl<T: Clone + PartialEq> Undo<T> {
    /// Records one frame of editing: `before` and `after` are the values around this
    /// frame's widgets, `pointer_down` whether a gesture may still be going on. A change while
    /// the pointer is held joins the gesture; the gesture becomes one step on release.
    pub fn track(&mut self, before: &T, after: &T, pointer_down: bool) {
        if before != after && self.gesture.is_none() {
            self.gesture = Some(before.clone());
        }
        if !pointer_down {
            if let Some(start) = self.gesture.take() {
                if &start != after {
                    self.push(start);
                }
            }
        }
    }

    /// Records a finished edit (a menu action, a double-click reset) as one step.
    pub fn push(&mut self, before: T) {
        self.past.push(before);
        if self.past.len() > LIMIT {
            self.past.remove(0);
        }
        self.future.clear();
    }

    /// Steps back: returns the value to restore, given the current one.
    pub fn undo(&mut self, current: &T) -> Option<T> {
        self.gesture = None;
        let p = self.past.pop()?;
        self.future.push(current.clone());
        Some(p)
    }

    /// Steps forward again.
    pub fn redo(&mut self, current: &T) -> Option<T> {
        self.gesture = None;
        let p = self.future.pop()?;
        self.past.push(current.clone());
        Some(p)
    }

    pub fn can_undo(&self) -> bool {
        !self.past.is_empty()
    }

    pub fn can_redo(&self) -> bool {
        !self.future.is_empty()
    }

    /// Forgets everything (a different preset was loaded).
    pub fn clear(&mut self) {
        *self = Self::default();
    }
}

#[cfg(test)]
impl Undo {
    fn fabric() -> Self {
        Self::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_damping(d: f32) -> FabricParams {
        FabricParams {
            damping: d,
            ..Default::default()
        }
    }

    #[test]
    fn a_drag_over_many_frames_is_one_step() {
        let mut u = Undo::fabric();
        let (a, b, c) = (with_damping(0.1), with_damping(0.2), with_damping(0.3));
        u.track(&a, &b, true);
        u.track(&b, &c, true);
        u.track(&c, &c, false);
        assert_eq!(u.undo(&c), Some(a.clone()));
        assert_eq!(u.undo(&a), None);
        assert_eq!(u.redo(&a), Some(c.clone()));
        assert_eq!(u.redo(&c), None);
    }

    #[test]
    fn a_keyboard_change_is_one_step_at_once_and_new_edits_drop_redo() {
        let mut u = Undo::fabric();
        let (a, b) = (with_damping(0.1), with_damping(0.2));
        u.track(&a, &b, false);
        assert!(u.can_undo());
        assert_eq!(u.undo(&b), Some(a.clone()));
        assert!(u.can_redo());
        u.track(&a, &with_damping(0.5), false);
        assert!(!u.can_redo());
    }

    #[test]
    fn a_drag_back_to_the_start_is_no_step() {
        let mut u = Undo::fabric();
        let (a, b) = (with_damping(0.1), with_damping(0.2));
        u.track(&a, &b, true);
        u.track(&b, &a, true);
        u.track(&a, &a, false);
        assert!(!u.can_undo());
    }
}
