//! The relaxation pass's inner loop: links in visiting order (walked by level, the same result
//! in fewer, overlapping groups), grouped so that links sharing no particle are projected side
//! by side, and the kernels that project them: plain Rust (every
//! platform), SSE2 four links at a time (every x86-64 CPU) and AVX2 eight at a time (chosen at
//! run time where the CPU has it).
//!
//! Every kernel gives the same bits. A group's links share no particle, so projecting them
//! together is projecting them one after another; the packed forms of IEEE add, subtract,
//! multiply, divide and square root round exactly as the scalar ones; and each kernel performs
//! the scalar code's operations in the scalar code's order (no fused multiply-add, nothing
//! reassociated). `tests/sim/kernels.rs` holds them to it.

use glam::Vec3;

/// Links projected together when they share no particle (SSE2 and the plain kernel).
pub(super) const LANES: usize = 4;

/// A particle position padded to 16 bytes (x, y, z, 0): one aligned packed load or store moves
/// one particle, and a store is read back whole by the next group's load (a 12-byte position
/// would need two loads and two stores and stall the CPU's store forwarding).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C, align(16))]
pub(super) struct P4 {
    x: f32,
    y: f32,
    z: f32,
    w: f32,
}

impl P4 {
    #[inline(always)]
    pub(super) fn new(v: Vec3) -> Self {
        Self {
            x: v.x,
            y: v.y,
            z: v.z,
            w: 0.0,
        }
    }

    #[inline(always)]
    pub(super) fn vec3(self) -> Vec3 {
        Vec3::new(self.x, self.y, self.z)
    }
}

/// Copies positions into the padded buffer (same length).
pub(super) fn pad(pos: &[Vec3], out: &mut [P4]) {
    for (o, p) in out.iter_mut().zip(pos) {
        *o = P4::new(*p);
    }
}

/// Copies the padded buffer back into positions (same length).
pub(super) fn unpad(padded: &[P4], pos: &mut [Vec3]) {
    for (p, o) in pos.iter_mut().zip(padded) {
        *p = o.vec3();
    }
}

/// A distance link ready for projection: indices, rest length, how much of the correction
/// each end takes (inverse-mass weights summing to 1, or both 0 when both ends are pinned) and
/// which of a pass's two stiffnesses it takes (`set`: 0 the first, 1 the second; stretch
/// and shear/bend links relaxed in one list).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Proj {
    pub a: u32,
    pub b: u32,
    pub rest: f32,
    pub wa: f32,
    pub wb: f32,
    pub set: u32,
}

impl Proj {
    /// A placeholder (never projected).
    const NONE: Proj = Proj::new(0, 0, 0.0);

    /// A link between `a` and `b` of length `rest`, no weights yet, taking the first stiffness.
    pub const fn new(a: u32, b: u32, rest: f32) -> Self {
        Proj {
            a,
            b,
            rest,
            wa: 0.0,
            wb: 0.0,
            set: 0,
        }
    }
}

/// One group of [`LANES`] links laid out lane by lane, for packed loads.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C, align(16))]
struct Pack {
    rest: [f32; LANES],
    wa: [f32; LANES],
    wb: [f32; LANES],
    a: [u32; LANES],
    b: [u32; LANES],
}

/// Per pack, all ones in the lanes whose link takes the second stiffness, zero in the others.
type Pick = [u32; LANES];

/// The pick of a pack whose links all take the first stiffness.
const FIRST: Pick = [0; LANES];

/// Which kernel projects the link groups. All give bit-identical positions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// Plain Rust, four links side by side in arrays (the compiler vectorises what it can).
    /// The only kernel off x86-64.
    Scalar,
    /// SSE2: four links per group in packed registers (every x86-64 CPU).
    Sse2,
    /// AVX2: eight links per group where eight in a row share no particle, else four.
    Avx2,
}

impl Kernel {
    /// The fastest kernel this CPU runs.
    pub fn best() -> Self {
        if Kernel::Avx2.is_available() {
            Kernel::Avx2
        } else if Kernel::Sse2.is_available() {
            Kernel::Sse2
        } else {
            Kernel::Scalar
        }
    }

    /// Whether this CPU runs the kernel.
    pub fn is_available(self) -> bool {
        match self {
            Kernel::Scalar => true,
            #[cfg(target_arch = "x86_64")]
            Kernel::Sse2 => true,
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => std::is_x86_feature_detected!("avx2"),
            #[cfg(not(target_arch = "x86_64"))]
            Kernel::Sse2 | Kernel::Avx2 => false,
        }
    }

    /// Every kernel, slowest first.
    pub const ALL: [Kernel; 3] = [Kernel::Scalar, Kernel::Sse2, Kernel::Avx2];

    /// A short name for reports.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Scalar => "scalar",
            Kernel::Sse2 => "sse2",
            Kernel::Avx2 => "avx2",
        }
    }
}

/// How a relaxation pass takes the next links of a [`LinkList`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    /// One link on its own.
    One,
    /// Four links sharing no particle, side by side (one [`Pack`]).
    Four,
    /// Eight links sharing no particle (two packs): side by side with AVX2, as two fours
    /// otherwise.
    Eight,
}

/// Links in a relaxation pass, visited in order, and the plan that walks them: from each
/// position the next eight links when they share no particle, else the next four, else one.
/// Any grouping of consecutive independent links gives the one-at-a-time result, so the plan
/// only decides the speed; a greedy one finds its step again after a link that could not be
/// grouped instead of staying out of step with fixed chunks.
#[derive(Clone, Debug, Default)]
pub(super) struct LinkList {
    pub links: Vec<Proj>,
    plan: Vec<Op>,
    /// The links the plan takes one at a time, in order.
    singles: Vec<Proj>,
    /// The links the plan takes four or eight at a time, in order.
    packs: Vec<Pack>,
    /// Beside each pack, which of its links take the second stiffness; empty when every link
    /// takes the first (the kernels then never read it: a one-stiffness list streams no more
    /// than its packs).
    picks: Vec<Pick>,
    /// One more than the largest particle index: the positions a pass needs.
    reach: usize,
}

impl LinkList {
    /// The links in the given visiting order, reordered by [`by_level`] (the same result, bit
    /// for bit, in fewer and overlapping groups): the solver's lists.
    pub fn levelled(links: Vec<Proj>) -> Self {
        Self::new(by_level(links))
    }

    /// The links visited exactly in the given order.
    pub fn new(links: Vec<Proj>) -> Self {
        let shares = |x: &Proj, y: &Proj| x.a == y.a || x.a == y.b || x.b == y.a || x.b == y.b;
        let disjoint =
            |c: &[Proj]| (0..c.len()).all(|i| (i + 1..c.len()).all(|j| !shares(&c[i], &c[j])));
        let mut plan = Vec::new();
        let (mut i, mut singles, mut packs) = (0, 0, 0);
        while i < links.len() {
            let fits = |k: usize| i + k <= links.len() && disjoint(&links[i..i + k]);
            let op = if fits(2 * LANES) {
                packs += 2;
                Op::Eight
            } else if fits(LANES) {
                packs += 1;
                Op::Four
            } else {
                singles += 1;
                Op::One
            };
            i += match op {
                Op::One => 1,
                Op::Four => LANES,
                Op::Eight => 2 * LANES,
            };
            plan.push(op);
        }
        let reach = links
            .iter()
            .map(|l| l.a.max(l.b) as usize + 1)
            .max()
            .unwrap_or(0);
        let mixed = links.iter().any(|l| l.set != 0);
        let mut list = Self {
            singles: vec![links.first().copied().unwrap_or(Proj::NONE); singles],
            packs: vec![Pack::default(); packs],
            picks: vec![FIRST; if mixed { packs } else { 0 }],
            links,
            plan,
            reach,
        };
        list.sync_packs();
        list
    }

    pub fn len(&self) -> usize {
        self.links.len()
    }

    /// Copies the links (after a weight change) into the plan's singles and packs.
    pub fn sync_packs(&mut self) {
        let (mut l, mut s, mut p) = (0, 0, 0);
        for op in &self.plan {
            let fours = match op {
                Op::One => {
                    self.singles[s] = self.links[l];
                    s += 1;
                    l += 1;
                    0
                }
                Op::Four => 1,
                Op::Eight => 2,
            };
            for _ in 0..fours {
                let pack = &mut self.packs[p];
                for (k, link) in self.links[l..l + LANES].iter().enumerate() {
                    pack.rest[k] = link.rest;
                    pack.wa[k] = link.wa;
                    pack.wb[k] = link.wb;
                    pack.a[k] = link.a;
                    pack.b[k] = link.b;
                    if let Some(pick) = self.picks.get_mut(p) {
                        pick[k] = if link.set == 0 { 0 } else { u32::MAX };
                    }
                }
                p += 1;
                l += LANES;
            }
        }
    }
}

/// The links reordered so that links sharing no particle come together, with the same result
/// as the given order, bit for bit: each link is moved as early as the links before it that
/// share one of its particles allow (its level: one more than theirs), and the links are
/// sorted by level, keeping the given order within a level. A projection reads and writes only
/// its own two particles, so links sharing none can be swapped; every particle still sees its
/// links in the given order. The links of one level share no particle, so a level is walked in
/// groups of eight, and neighbouring groups do not wait on each other: the CPU overlaps them
/// instead of running one long chain of square roots and divisions (a sweep in the given order
/// mostly follows one row or diagonal at a time).
fn by_level(links: Vec<Proj>) -> Vec<Proj> {
    let reach = links.iter().map(|l| l.a.max(l.b) as usize + 1).max();
    // The level of the last link so far on each particle (0: none yet).
    let mut last = vec![0u32; reach.unwrap_or(0)];
    let mut levelled: Vec<(u32, Proj)> = links
        .into_iter()
        .map(|l| {
            let (a, b) = (l.a as usize, l.b as usize);
            let level = last[a].max(last[b]) + 1;
            (last[a], last[b]) = (level, level);
            (level, l)
        })
        .collect();
    // Stable: the given order within a level.
    levelled.sort_by_key(|&(level, _)| level);
    levelled.into_iter().map(|(_, l)| l).collect()
}

/// One Gauss-Seidel sweep over `list`: move both ends of each link along it so its length
/// approaches the rest length by its stiffness (`stiffness[set]`) of the error, shared by
/// the inverse-mass weights. A kernel the CPU lacks falls back to the next one down.
#[inline(never)]
pub(super) fn relax(pos: &mut [P4], list: &LinkList, stiffness: [f32; 2], kernel: Kernel) {
    if stiffness.iter().all(|&k| k <= 0.0) {
        return;
    }
    // The packed kernels index without bounds checks; this one check covers every index.
    assert!(pos.len() >= list.reach, "a link points past the positions");
    if list.picks.is_empty() {
        relax_with::<false>(pos, list, stiffness, kernel);
    } else {
        relax_with::<true>(pos, list, stiffness, kernel);
    }
}

/// [`relax`] by `kernel`; `MIXED`: the list's links take both stiffnesses (else the first).
#[inline(always)]
fn relax_with<const MIXED: bool>(
    pos: &mut [P4],
    list: &LinkList,
    stiffness: [f32; 2],
    kernel: Kernel,
) {
    #[cfg(target_arch = "x86_64")]
    match kernel {
        Kernel::Avx2 if std::is_x86_feature_detected!("avx2") => {
            // SAFETY: the CPU has AVX2 (checked just above) and every link index is below
            // `pos.len()` (asserted by `relax`).
            unsafe { x86::relax_avx2::<MIXED>(pos, list, stiffness) };
            return;
        }
        Kernel::Avx2 | Kernel::Sse2 => {
            // SAFETY: every link index is below `pos.len()` (asserted by `relax`); SSE2 is
            // part of x86-64.
            unsafe { x86::relax_sse2::<MIXED>(pos, list, stiffness) };
            return;
        }
        Kernel::Scalar => {}
    }
    let _ = kernel;
    relax_scalar::<MIXED>(pos, list, stiffness);
}

/// The plain kernel: a group of [`LANES`] independent links is computed in arrays side by side,
/// any other link on its own.
fn relax_scalar<const MIXED: bool>(pos: &mut [P4], list: &LinkList, stiffness: [f32; 2]) {
    walk::<MIXED>(
        pos,
        list,
        |pos, l| project(pos, l, stiffness),
        |pos, g, pick| group_scalar::<MIXED>(pos, g, pick, stiffness),
        |pos, [lo, hi], [pick_lo, pick_hi]| {
            group_scalar::<MIXED>(pos, lo, pick_lo, stiffness);
            group_scalar::<MIXED>(pos, hi, pick_hi, stiffness);
        },
    );
}

/// Walks a list's plan in order, handing each link taken on its own to `one`, each group of
/// four to `four` and each group of eight (two packs of four) to `eight`, with their picks
/// (`MIXED`: read beside the packs; else [`FIRST`]): the one walk every kernel shares, so they
/// visit the links alike.
#[inline(always)]
fn walk<const MIXED: bool>(
    pos: &mut [P4],
    list: &LinkList,
    mut one: impl FnMut(&mut [P4], &Proj),
    mut four: impl FnMut(&mut [P4], &Pack, &Pick),
    mut eight: impl FnMut(&mut [P4], [&Pack; 2], [&Pick; 2]),
) {
    let (mut singles, mut packs) = (list.singles.iter(), list.packs.iter());
    let mut picks = list.picks.iter();
    let mut pick = || match MIXED {
        true => picks.next().unwrap_or(&FIRST),
        false => &FIRST,
    };
    for op in &list.plan {
        match op {
            Op::One => {
                if let Some(l) = singles.next() {
                    one(pos, l);
                }
            }
            Op::Four => {
                if let Some(g) = packs.next() {
                    four(pos, g, pick());
                }
            }
            Op::Eight => {
                if let (Some(lo), Some(hi)) = (packs.next(), packs.next()) {
                    eight(pos, [lo, hi], [pick(), pick()]);
                }
            }
        }
    }
}

/// Four links that share no particle, computed side by side in arrays.
#[inline(always)]
fn group_scalar<const MIXED: bool>(pos: &mut [P4], g: &Pack, pick: &Pick, stiffness: [f32; 2]) {
    let mut pa = [Vec3::ZERO; LANES];
    let mut pb = [Vec3::ZERO; LANES];
    for k in 0..LANES {
        pa[k] = pos[g.a[k] as usize].vec3();
        pb[k] = pos[g.b[k] as usize].vec3();
    }
    let mut dx = [0.0f32; LANES];
    let mut dy = [0.0f32; LANES];
    let mut dz = [0.0f32; LANES];
    let mut s = [0.0f32; LANES];
    for k in 0..LANES {
        dx[k] = pb[k].x - pa[k].x;
        dy[k] = pb[k].y - pa[k].y;
        dz[k] = pb[k].z - pa[k].z;
    }
    for k in 0..LANES {
        let len2 = dx[k] * dx[k] + dy[k] * dy[k] + dz[k] * dz[k];
        let len = len2.sqrt();
        // A zero-length link has no direction: no correction.
        let stiffness = stiffness[if MIXED { (pick[k] & 1) as usize } else { 0 }];
        s[k] = if len2 > 1e-18 {
            stiffness * (len - g.rest[k]) / len
        } else {
            0.0
        };
    }
    for k in 0..LANES {
        let d = Vec3::new(dx[k], dy[k], dz[k]);
        pos[g.a[k] as usize] = P4::new(pa[k] + d * (s[k] * g.wa[k]));
        pos[g.b[k] as usize] = P4::new(pb[k] - d * (s[k] * g.wb[k]));
    }
}

/// One link on its own (a link of a group whose links share particles).
#[inline(always)]
fn project(pos: &mut [P4], l: &Proj, stiffness: [f32; 2]) {
    let (a, b) = (l.a as usize, l.b as usize);
    let (pa, pb) = (pos[a].vec3(), pos[b].vec3());
    let d = pb - pa;
    let len2 = d.length_squared();
    if len2 <= 1e-18 {
        return;
    }
    let len = len2.sqrt();
    let s = stiffness[(l.set & 1) as usize] * (len - l.rest) / len;
    pos[a] = P4::new(pa + d * (s * l.wa));
    pos[b] = P4::new(pb - d * (s * l.wb));
}

/// The packed kernels. Positions are gathered four at a time and transposed into one register
/// per axis (lane k = link k), so the arithmetic is the scalar code's, lane by lane; the results
/// are transposed back and stored whole (w = 0).
#[cfg(target_arch = "x86_64")]
pub(super) mod x86 {
    use std::arch::x86_64::*;

    use super::{project, walk, LinkList, Pack, Pick, LANES, P4};

    /// x, y and z of the four particles `idx` (lane k = particle `idx[k]`).
    ///
    /// # Safety
    /// Every index is below the length of the buffer `pos` points into.
    #[inline(always)]
    unsafe fn gather4(pos: *const P4, idx: &[u32; LANES]) -> [__m128; 3] {
        let load = |k: usize| _mm_load_ps(pos.add(idx[k] as usize).cast());
        transpose4([load(0), load(1), load(2), load(3)])
    }

    /// Four padded positions (x, y, z, w each) as x, y and z of the four (lane k = position k).
    #[inline(always)]
    pub(in crate::sim) fn transpose4([r0, r1, r2, r3]: [__m128; 4]) -> [__m128; 3] {
        // SAFETY: SSE is part of every x86-64 CPU.
        unsafe {
            let t0 = _mm_unpacklo_ps(r0, r1); // x0 x1 y0 y1
            let t1 = _mm_unpacklo_ps(r2, r3); // x2 x3 y2 y3
            let t2 = _mm_unpackhi_ps(r0, r1); // z0 z1 w0 w1
            let t3 = _mm_unpackhi_ps(r2, r3); // z2 z3 w2 w3
            [
                _mm_movelh_ps(t0, t1),
                _mm_movehl_ps(t1, t0),
                _mm_movelh_ps(t2, t3),
            ]
        }
    }

    /// Stores lane k of x, y, z as particle `idx[k]` (w = 0).
    ///
    /// # Safety
    /// Every index is below the length of the buffer `pos` points into.
    #[inline(always)]
    unsafe fn scatter4(pos: *mut P4, idx: &[u32; LANES], [x, y, z]: [__m128; 3]) {
        let zero = _mm_setzero_ps();
        let t0 = _mm_unpacklo_ps(x, y); // x0 y0 x1 y1
        let t1 = _mm_unpackhi_ps(x, y); // x2 y2 x3 y3
        let t2 = _mm_unpacklo_ps(z, zero); // z0 0 z1 0
        let t3 = _mm_unpackhi_ps(z, zero); // z2 0 z3 0
        _mm_store_ps(pos.add(idx[0] as usize).cast(), _mm_movelh_ps(t0, t2));
        _mm_store_ps(pos.add(idx[1] as usize).cast(), _mm_movehl_ps(t2, t0));
        _mm_store_ps(pos.add(idx[2] as usize).cast(), _mm_movelh_ps(t1, t3));
        _mm_store_ps(pos.add(idx[3] as usize).cast(), _mm_movehl_ps(t3, t1));
    }

    /// Four independent links projected together: the scalar group's operations, lane by lane.
    ///
    /// # Safety
    /// Every index in `g` is below the length of the buffer `pos` points into.
    #[inline(always)]
    unsafe fn group4<const MIXED: bool>(
        pos: *mut P4,
        g: &Pack,
        pick: &Pick,
        [first, second]: [__m128; 2],
    ) {
        let [xa, ya, za] = gather4(pos, &g.a);
        let [xb, yb, zb] = gather4(pos, &g.b);
        let dx = _mm_sub_ps(xb, xa);
        let dy = _mm_sub_ps(yb, ya);
        let dz = _mm_sub_ps(zb, za);
        let len2 = _mm_add_ps(
            _mm_add_ps(_mm_mul_ps(dx, dx), _mm_mul_ps(dy, dy)),
            _mm_mul_ps(dz, dz),
        );
        let len = _mm_sqrt_ps(len2);
        let rest = _mm_load_ps(g.rest.as_ptr());
        let stiffness = if MIXED {
            let pick = _mm_load_ps(pick.as_ptr().cast());
            _mm_or_ps(_mm_andnot_ps(pick, first), _mm_and_ps(pick, second))
        } else {
            first
        };
        let s = _mm_div_ps(_mm_mul_ps(stiffness, _mm_sub_ps(len, rest)), len);
        // A zero-length link has no direction: no correction (+0, as the scalar code).
        let s = _mm_and_ps(s, _mm_cmpgt_ps(len2, _mm_set1_ps(1e-18)));
        let sa = _mm_mul_ps(s, _mm_load_ps(g.wa.as_ptr()));
        let sb = _mm_mul_ps(s, _mm_load_ps(g.wb.as_ptr()));
        let a = [
            _mm_add_ps(xa, _mm_mul_ps(dx, sa)),
            _mm_add_ps(ya, _mm_mul_ps(dy, sa)),
            _mm_add_ps(za, _mm_mul_ps(dz, sa)),
        ];
        let b = [
            _mm_sub_ps(xb, _mm_mul_ps(dx, sb)),
            _mm_sub_ps(yb, _mm_mul_ps(dy, sb)),
            _mm_sub_ps(zb, _mm_mul_ps(dz, sb)),
        ];
        scatter4(pos, &g.a, a);
        scatter4(pos, &g.b, b);
    }

    /// The SSE2 kernel.
    ///
    /// # Safety
    /// Every link index is below `pos.len()`.
    pub(super) unsafe fn relax_sse2<const MIXED: bool>(
        pos: &mut [P4],
        list: &LinkList,
        stiffness: [f32; 2],
    ) {
        let k4 = stiffness.map(|k| _mm_set1_ps(k));
        walk::<MIXED>(
            pos,
            list,
            |pos, l| project(pos, l, stiffness),
            |pos, g, pick| group4::<MIXED>(pos.as_mut_ptr(), g, pick, k4),
            |pos, [lo, hi], [pick_lo, pick_hi]| {
                group4::<MIXED>(pos.as_mut_ptr(), lo, pick_lo, k4);
                group4::<MIXED>(pos.as_mut_ptr(), hi, pick_hi, k4);
            },
        );
    }

    /// x, y and z of particles `lo[k]` (lane k) and `hi[k]` (lane 4 + k).
    ///
    /// # Safety
    /// The CPU has AVX2; every index is below the length of the buffer `pos` points into.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn gather8(pos: *const P4, lo: &[u32; LANES], hi: &[u32; LANES]) -> [__m256; 3] {
        macro_rules! row {
            ($k:expr) => {
                _mm256_set_m128(
                    _mm_load_ps(pos.add(hi[$k] as usize).cast()),
                    _mm_load_ps(pos.add(lo[$k] as usize).cast()),
                )
            };
        }
        let (r0, r1, r2, r3) = (row!(0), row!(1), row!(2), row!(3));
        // The 4 x 4 transpose of gather4 in each 128-bit half.
        let t0 = _mm256_unpacklo_ps(r0, r1);
        let t1 = _mm256_unpacklo_ps(r2, r3);
        let t2 = _mm256_unpackhi_ps(r0, r1);
        let t3 = _mm256_unpackhi_ps(r2, r3);
        [
            _mm256_shuffle_ps::<0x44>(t0, t1),
            _mm256_shuffle_ps::<0xEE>(t0, t1),
            _mm256_shuffle_ps::<0x44>(t2, t3),
        ]
    }

    /// Stores lane k of x, y, z as particle `lo[k]` and lane 4 + k as `hi[k]` (w = 0).
    ///
    /// # Safety
    /// The CPU has AVX2; every index is below the length of the buffer `pos` points into.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn scatter8(pos: *mut P4, lo: &[u32; LANES], hi: &[u32; LANES], [x, y, z]: [__m256; 3]) {
        let zero = _mm256_setzero_ps();
        let t0 = _mm256_unpacklo_ps(x, y);
        let t1 = _mm256_unpackhi_ps(x, y);
        let t2 = _mm256_unpacklo_ps(z, zero);
        let t3 = _mm256_unpackhi_ps(z, zero);
        let rows = [
            _mm256_shuffle_ps::<0x44>(t0, t2),
            _mm256_shuffle_ps::<0xEE>(t0, t2),
            _mm256_shuffle_ps::<0x44>(t1, t3),
            _mm256_shuffle_ps::<0xEE>(t1, t3),
        ];
        for k in 0..LANES {
            _mm_store_ps(
                pos.add(lo[k] as usize).cast(),
                _mm256_castps256_ps128(rows[k]),
            );
            _mm_store_ps(
                pos.add(hi[k] as usize).cast(),
                _mm256_extractf128_ps::<1>(rows[k]),
            );
        }
    }

    /// `lo` and `hi` as one group of eight: their links share no particle.
    ///
    /// # Safety
    /// The CPU has AVX2; every index in `lo` and `hi` is below the length of the buffer `pos`
    /// points into.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn group8<const MIXED: bool>(
        pos: *mut P4,
        [lo, hi]: [&Pack; 2],
        [pick_lo, pick_hi]: [&Pick; 2],
        [first, second]: [__m256; 2],
    ) {
        let [xa, ya, za] = gather8(pos, &lo.a, &hi.a);
        let [xb, yb, zb] = gather8(pos, &lo.b, &hi.b);
        let dx = _mm256_sub_ps(xb, xa);
        let dy = _mm256_sub_ps(yb, ya);
        let dz = _mm256_sub_ps(zb, za);
        let len2 = _mm256_add_ps(
            _mm256_add_ps(_mm256_mul_ps(dx, dx), _mm256_mul_ps(dy, dy)),
            _mm256_mul_ps(dz, dz),
        );
        let len = _mm256_sqrt_ps(len2);
        let rest = _mm256_set_m128(_mm_load_ps(hi.rest.as_ptr()), _mm_load_ps(lo.rest.as_ptr()));
        let stiffness = if MIXED {
            let pick = _mm256_set_m128(
                _mm_load_ps(pick_hi.as_ptr().cast()),
                _mm_load_ps(pick_lo.as_ptr().cast()),
            );
            _mm256_blendv_ps(first, second, pick)
        } else {
            first
        };
        let s = _mm256_div_ps(_mm256_mul_ps(stiffness, _mm256_sub_ps(len, rest)), len);
        // A zero-length link has no direction: no correction (+0, as the scalar code).
        let far = _mm256_cmp_ps::<_CMP_GT_OQ>(len2, _mm256_set1_ps(1e-18));
        let s = _mm256_and_ps(s, far);
        let wa = _mm256_set_m128(_mm_load_ps(hi.wa.as_ptr()), _mm_load_ps(lo.wa.as_ptr()));
        let wb = _mm256_set_m128(_mm_load_ps(hi.wb.as_ptr()), _mm_load_ps(lo.wb.as_ptr()));
        let sa = _mm256_mul_ps(s, wa);
        let sb = _mm256_mul_ps(s, wb);
        let a = [
            _mm256_add_ps(xa, _mm256_mul_ps(dx, sa)),
            _mm256_add_ps(ya, _mm256_mul_ps(dy, sa)),
            _mm256_add_ps(za, _mm256_mul_ps(dz, sa)),
        ];
        let b = [
            _mm256_sub_ps(xb, _mm256_mul_ps(dx, sb)),
            _mm256_sub_ps(yb, _mm256_mul_ps(dy, sb)),
            _mm256_sub_ps(zb, _mm256_mul_ps(dz, sb)),
        ];
        scatter8(pos, &lo.a, &hi.a, a);
        scatter8(pos, &lo.b, &hi.b, b);
    }

    /// The AVX2 kernel: eight links at a time where the plan has eight, else as SSE2 (VEX
    /// encoded here).
    ///
    /// # Safety
    /// The CPU has AVX2; every link index is below `pos.len()`.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn relax_avx2<const MIXED: bool>(
        pos: &mut [P4],
        list: &LinkList,
        stiffness: [f32; 2],
    ) {
        let k4 = stiffness.map(|k| _mm_set1_ps(k));
        let k8 = stiffness.map(|k| _mm256_set1_ps(k));
        walk::<MIXED>(
            pos,
            list,
            |pos, l| project(pos, l, stiffness),
            |pos, g, pick| group4::<MIXED>(pos.as_mut_ptr(), g, pick, k4),
            |pos, packs, picks| group8::<MIXED>(pos.as_mut_ptr(), packs, picks, k8),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proj(wa: f32, wb: f32) -> Proj {
        Proj {
            a: 0,
            b: 1,
            rest: 1.0,
            wa,
            wb,
            set: 0,
        }
    }

    /// `list` relaxed once on `pos` by every kernel this CPU runs; they must agree bit for bit.
    fn relax_all(pos: &mut [Vec3], list: &LinkList, stiffness: impl Into<Both>) {
        let stiffness = stiffness.into().0;
        let mut results = Kernel::ALL
            .into_iter()
            .filter(|k| k.is_available())
            .map(|k| {
                let mut padded = vec![P4::default(); pos.len()];
                pad(pos, &mut padded);
                relax(&mut padded, list, stiffness, k);
                let mut out = pos.to_vec();
                unpad(&padded, &mut out);
                (k, out)
            });
        let (_, first) = results.next().unwrap();
        for (k, other) in results {
            let bits = |v: &[Vec3]| -> Vec<[u32; 3]> {
                v.iter().map(|p| p.to_array().map(f32::to_bits)).collect()
            };
            assert_eq!(
                bits(&first),
                bits(&other),
                "{} differs from scalar",
                k.name()
            );
        }
        pos.copy_from_slice(&first);
    }

    /// A pass's two stiffnesses, or one for both.
    struct Both([f32; 2]);

    impl From<f32> for Both {
        fn from(k: f32) -> Self {
            Both([k; 2])
        }
    }

    impl From<[f32; 2]> for Both {
        fn from(k: [f32; 2]) -> Self {
            Both(k)
        }
    }

    fn scattered(n: usize) -> Vec<Vec3> {
        (0..n)
            .map(|i| {
                Vec3::new(
                    (i as f32 * 0.37).sin(),
                    i as f32 * 0.05,
                    (i as f32).cos() * 0.1,
                )
            })
            .collect()
    }

    #[test]
    fn grouped_projection_equals_one_at_a_time() {
        // Sixteen independent links (two groups of eight, four of four, one zero length) and
        // the same projected singly.
        let links: Vec<Proj> = (0..16)
            .map(|k| Proj {
                a: 2 * k,
                b: 2 * k + 1,
                rest: 0.1 + 0.01 * k as f32,
                wa: 0.3,
                wb: 0.7,
                set: 0,
            })
            .collect();
        let mut start = scattered(32);
        start[11] = start[10];
        let grouped = LinkList::new(links.clone());
        assert_eq!(grouped.plan, vec![Op::Eight, Op::Eight]);
        let one_at_a_time = |links: &[Proj]| {
            let mut b = vec![P4::default(); 32];
            pad(&start, &mut b);
            for l in links {
                project(&mut b, l, [0.8; 2]);
            }
            let mut out = start.clone();
            unpad(&b, &mut out);
            out
        };
        let mut a = start.clone();
        relax_all(&mut a, &grouped, 0.8);
        assert_eq!(a, one_at_a_time(&links));
        // Links sharing a particle are never in one group; the plan takes the first on its
        // own and groups again from the next.
        let mut shared = links.clone();
        shared[3].a = 0;
        use Op::*;
        let list = LinkList::new(shared.clone());
        assert_eq!(list.plan, vec![One, Eight, Four, One, One, One]);
        let mut a = start.clone();
        relax_all(&mut a, &list, 0.8);
        assert_eq!(a, one_at_a_time(&shared));
        // Two groups of four that share a particle between them are not a group of eight.
        let mut across = links.clone();
        across[5].b = 0;
        assert_eq!(LinkList::new(across).plan, vec![Four, Eight, Four]);
    }

    #[test]
    fn the_level_order_gives_the_given_order_bit_for_bit_in_fewer_groups() {
        // A 12 x 12 grid's links in build order (each link shares a particle with the next
        // ones), the cloth moved off its rest pose, relaxed by every kernel in the level order
        // and one link at a time in the build order: the same bits after several passes.
        let topo = super::super::Topology::flat_grid(12, 12, 0.1, Vec3::ZERO);
        let links: Vec<Proj> = (topo.links.iter())
            .map(|l| Proj {
                a: l.a,
                b: l.b,
                rest: l.rest,
                wa: 0.4,
                wb: 0.6,
                set: 0,
            })
            .collect();
        let levelled = LinkList::levelled(links.clone());
        let start: Vec<Vec3> = (topo.rest.iter().zip(scattered(topo.len())))
            .map(|(r, s)| *r + s * 0.03)
            .collect();
        let mut given = vec![P4::default(); start.len()];
        pad(&start, &mut given);
        let mut ours = start.clone();
        for _ in 0..4 {
            for l in &links {
                project(&mut given, l, [0.9; 2]);
            }
            relax_all(&mut ours, &levelled, 0.9);
        }
        let mut expected = start.clone();
        unpad(&given, &mut expected);
        let bits = |v: &[Vec3]| -> Vec<[u32; 3]> {
            v.iter().map(|p| p.to_array().map(f32::to_bits)).collect()
        };
        assert_ne!(expected, start);
        assert_eq!(bits(&ours), bits(&expected));
        // Every link once, and walked in far fewer steps than links.
        let pairs = |l: &[Proj]| {
            let mut v: Vec<(u32, u32)> = l.iter().map(|l| (l.a, l.b)).collect();
            v.sort();
            v
        };
        assert_eq!(pairs(&levelled.links), pairs(&links));
        assert!(
            levelled.plan.len() * 3 < links.len(),
            "{}",
            levelled.plan.len()
        );
        assert!(LinkList::new(links.clone()).plan.len() * 2 > links.len());
    }

    #[test]
    fn passes_of_two_lists_in_one_levelled_list_give_the_passes_bit_for_bit() {
        // A 12 x 12 grid's stretch links (first stiffness) and the others (second), relaxed
        // as the solver did: four passes, each the stretch list then the other, one link at a
        // time; and as one levelled list of all four passes with the stiffness per link.
        let topo = super::super::Topology::flat_grid(12, 12, 0.1, Vec3::ZERO);
        let link = |l: &super::super::Link, set: u32| Proj {
            wa: 0.45,
            wb: 0.55,
            set,
            ..Proj::new(l.a, l.b, l.rest)
        };
        let stretch: Vec<Proj> = (topo.links.iter())
            .filter(|l| l.kind.is_stretch())
            .map(|l| link(l, 0))
            .collect();
        let others: Vec<Proj> = (topo.links.iter())
            .filter(|l| !l.kind.is_stretch())
            .map(|l| link(l, 1))
            .collect();
        let pass: Vec<Proj> = stretch.iter().chain(&others).copied().collect();
        let passes = 4;
        let run = LinkList::levelled(pass.repeat(passes));
        let stiffness = [0.9, 0.35];
        let start: Vec<Vec3> = (topo.rest.iter().zip(scattered(topo.len())))
            .map(|(r, s)| *r + s * 0.03)
            .collect();
        let mut given = vec![P4::default(); start.len()];
        pad(&start, &mut given);
        for _ in 0..passes {
            for l in &pass {
                project(&mut given, l, stiffness);
            }
        }
        let mut expected = start.clone();
        unpad(&given, &mut expected);
        let mut ours = start.clone();
        relax_all(&mut ours, &run, stiffness);
        let bits = |v: &[Vec3]| -> Vec<[u32; 3]> {
            v.iter().map(|p| p.to_array().map(f32::to_bits)).collect()
        };
        assert_ne!(expected, start);
        assert_eq!(bits(&ours), bits(&expected));
        // The passes overlap: far fewer levels than the lists walked one after the other.
        let separate: usize = [stretch, others]
            .map(|l| LinkList::levelled(l).plan.len())
            .iter()
            .sum();
        assert!(
            3 * run.plan.len() < 2 * separate * passes,
            "{} steps for the run, {} for each pass's two lists",
            run.plan.len(),
            separate
        );
    }

    #[test]
    fn stiffness_one_solves_a_link_in_one_projection_and_half_halves_it() {
        // Two particles 2 m apart, rest 1 m, equal mass.
        let list = LinkList::new(vec![proj(0.5, 0.5)]);
        let mut pos = [Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0)];
        relax_all(&mut pos, &list, 1.0);
        assert_eq!(pos, [Vec3::new(0.5, 0.0, 0.0), Vec3::new(1.5, 0.0, 0.0)]);
        let mut pos = [Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0)];
        relax_all(&mut pos, &list, 0.5);
        // Half the 1 m error removed, shared equally.
        assert_eq!(pos, [Vec3::new(0.25, 0.0, 0.0), Vec3::new(1.75, 0.0, 0.0)]);
        let mut pos = [Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0)];
        relax_all(&mut pos, &list, 0.0);
        assert_eq!(pos[1].x, 2.0);
    }

    #[test]
    fn projection_is_weighted_by_inverse_mass() {
        // `a` pinned (weight 0): only `b` moves.
        let mut pos = [Vec3::ZERO, Vec3::new(0.0, -1.5, 0.0)];
        relax_all(&mut pos, &LinkList::new(vec![proj(0.0, 1.0)]), 1.0);
        assert_eq!(pos, [Vec3::ZERO, Vec3::new(0.0, -1.0, 0.0)]);
        // `a` twice as heavy: it takes a third of the correction.
        let mut pos = [Vec3::ZERO, Vec3::new(0.0, -1.3, 0.0)];
        relax_all(
            &mut pos,
            &LinkList::new(vec![proj(1.0 / 3.0, 2.0 / 3.0)]),
            1.0,
        );
        assert!((pos[0].y - -0.1).abs() < 1e-6, "{:?}", pos);
        assert!((pos[1].y - -1.1).abs() < 1e-6, "{:?}", pos);
    }
}
