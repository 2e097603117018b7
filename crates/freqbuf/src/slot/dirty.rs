//! `DirtySet`: which instances of a slot changed since the last flush, and
//! which bytes of each.
//!
//! One bit per instance, and one summary bit per 64-instance word, so a
//! flush finds the dirty instances in ascending order by visiting only the
//! words that hold one: O(dirty words + instances / 4096), with no sort and
//! no visit of clean instances (Bevy's sparse buffer uploads keep such summary
//! words too). Each dirty instance keeps the span from its first to its last
//! changed 4-byte word, so an upload moves the bytes that changed, not the
//! whole instance.
//!
//! Most frames write the same member on many instances, so most dirty spans
//! are equal: the set keeps one common span (the first one marked after a
//! drain) and a per-instance span only for the instances whose span differs
//! (an `own` bit says which). Marking and draining an instance with the
//! common span then touches only the bit words, not a per-instance array as
//! large as the slot (a cache miss per moved object at 100,000 objects).

/// Whether `dirty` bytes spread over `span` bytes fill at least `fraction`
/// of it, so that it uploads as that one span (the clean bytes inside equal what
/// the GPU holds).
#[inline]
pub(crate) fn fills_span(dirty: u64, span: u64, fraction: f32) -> bool {
    dirty as f64 >= f64::from(fraction) * span as f64
}

/// A dirty byte range inside one instance; `lo == hi` means clean.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Span {
    lo: u32,
    hi: u32,
}

/// Dirty instances of one slot, with the dirty bytes of each.
#[derive(Debug, Default)]
pub(crate) struct DirtySet {
    spans: Vec<Span>,
    /// Bit `i % 64` of word `i / 64`: instance `i` is dirty.
    bits: Vec<u64>,
    /// Bit `w % 64` of word `w / 64`: `bits[w]` is not zero.
    summary: Vec<u64>,
    /// Bit `i`: instance `i`'s span is `spans[i]`, not `common`.
    own: Vec<u64>,
    /// The span of every dirty instance without its `own` bit; empty when none is dirty.
    common: Span,
    count: usize,
    /// Dirty instances with an `own` bit.
    owned: usize,
}

impl DirtySet {
    /// Makes room for `n` instances (never shrinks).
    pub(crate) fn reserve(&mut self, n: usize) {
        if n > self.spans.len() {
            self.spans.resize(n, Span::default());
            self.bits.resize(n.div_ceil(64), 0);
            self.own.resize(n.div_ceil(64), 0);
            self.summary.resize(self.bits.len().div_ceil(64), 0);
        }
    }

    /// Marks bytes `lo..hi` of instance `i` dirty, widening its span.
    #[inline]
    pub(crate) fn mark(&mut self, i: u32, lo: u32, hi: u32) {
        let (w, bit) = (i as usize / 64, 1u64 << (i % 64));
        let span = Span { lo, hi };
        if self.bits[w] & bit == 0 {
            self.bits[w] |= bit;
            self.summary[w / 64] |= 1 << (w % 64);
            self.count += 1;
            if self.common.lo == self.common.hi {
                self.common = span;
            } else if self.common != span {
                self.own[w] |= bit;
                self.owned += 1;
                self.spans[i as usize] = span;
            }
        } else if self.own[w] & bit != 0 {
            let s = &mut self.spans[i as usize];
            s.lo = s.lo.min(lo);
            s.hi = s.hi.max(hi);
        } else if lo < self.common.lo || hi > self.common.hi {
            self.own[w] |= bit;
            self.owned += 1;
            let c = self.common;
            self.spans[i as usize] = Span { lo: c.lo.min(lo), hi: c.hi.max(hi) };
        }
    }

    /// Whether instance `i` is dirty.
    #[inline]
    pub(crate) fn contains(&self, i: u32) -> bool {
        self.bits.get(i as usize / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
    }

    /// Dirty instances.
    #[inline]
    pub(crate) fn count(&self) -> usize {
        self.count
    }

    /// Calls `take(index, lo, hi)` for every dirty instance below `below`, in
    /// ascending order, and marks each clean; those at or above stay dirty.
    ///
    /// Cost: the summary words, plus the words that hold a dirty instance.
    pub(crate) fn drain_below(&mut self, below: u32, mut take: impl FnMut(u32, u32, u32)) {
        for s in 0..self.summary.len() {
            let mut words = self.summary[s];
            while words != 0 {
                let w = s * 64 + words.trailing_zeros() as usize;
                words &= words - 1;
                let mut bits = self.bits[w];
                while bits != 0 {
                    let i = (w * 64) as u32 + bits.trailing_zeros();
                    if i >= below {
                        self.bits[w] = bits;
                        return;
                    }
                    bits &= bits - 1;
                    let bit = 1u64 << (i % 64);
                    let span = if self.own[w] & bit != 0 {
                        self.own[w] &= !bit;
                        self.owned -= 1;
                        self.spans[i as usize]
                    } else {
                        self.common
                    };
                    self.count -= 1;
                    take(i, span.lo, span.hi);
                }
                self.bits[w] = 0;
                self.summary[s] &= !(1 << (w % 64));
            }
        }
        if self.count == 0 {
            self.common = Span::default();
        }
    }

    /// The first and last dirty instance and their one span, where every
    /// dirty instance has the common span; `None` when some has its own or
    /// none is dirty.
    ///
    /// Cost: the summary words, and a bit word at each end.
    pub(crate) fn uniform(&self) -> Option<(u32, u32, u32, u32)> {
        if self.count == 0 || self.owned > 0 {
            return None;
        }
        let word = |s: usize, w: u64, last: bool| {
            let at = if last { 63 - w.leading_zeros() } else { w.trailing_zeros() };
            s * 64 + at as usize
        };
        let s = self.summary.iter().position(|&w| w != 0)?;
        let w = word(s, self.summary[s], false);
        let first = word(w, self.bits[w], false);
        let s = self.summary.iter().rposition(|&w| w != 0)?;
        let w = word(s, self.summary[s], true);
        let last = word(w, self.bits[w], true);
        Some((first as u32, last as u32, self.common.lo, self.common.hi))
    }

    /// Marks every instance clean without visiting them one by one (after
    /// a flush took them all as one range, [`DirtySet::uniform`], or the
    /// whole slot).
    ///
    /// Cost: the bit words (a sixty-fourth of the instances).
    pub(crate) fn clear(&mut self) {
        self.bits.fill(0);
        self.summary.fill(0);
        self.own.fill(0);
        self.common = Span::default();
        self.count = 0;
        self.owned = 0;
    }
}

/// The first and last byte where `old` and `new` differ (equal lengths), or
/// `None` when they are equal. Compares eight bytes at a time: this runs on
/// every value set, and most sets change a 16- to 64-byte value.
#[inline(always)]
pub(crate) fn changed_span(old: &[u8], new: &[u8]) -> Option<(usize, usize)> {
    debug_assert_eq!(old.len(), new.len());
    // No `old == new` first: a libc memcmp call costs more than the word loop
    // below, which finds equal values too.
    let word = |s: &[u8], at: usize| u64::from_le_bytes(s[at..at + 8].try_into().expect("8 bytes"));
    let n = old.len();
    let mut first = 0;
    loop {
        if first + 8 > n {
            first += old[first..].iter().zip(&new[first..]).position(|(a, b)| a != b)?;
            break;
        }
        let x = word(old, first) ^ word(new, first);
        if x != 0 {
            first += (x.trailing_zeros() / 8) as usize;
            break;
        }
        first += 8;
    }
    let mut end = n;
    let last = loop {
        if end < first + 8 {
            break first + old[first..end].iter().zip(&new[first..end]).rposition(|(a, b)| a != b)?;
        }
        let x = word(old, end - 8) ^ word(new, end - 8);
        if x != 0 {
            break end - 1 - (x.leading_zeros() / 8) as usize;
        }
        end -= 8;
    };
    Some((first, last))
}

#[cfg(test)]
mod span_tests {
    use proptest::prelude::*;

    proptest! {
        /// The word-at-a-time span equals the byte-by-byte one.
        #[test]
        fn changed_span_is_the_first_and_last_differing_byte(
            old in proptest::collection::vec(0u8..3, 0..80),
            flips in proptest::collection::vec(any::<prop::sample::Index>(), 0..4),
        ) {
            let mut new = old.clone();
            for f in &flips {
                if !new.is_empty() {
                    let i = f.index(new.len());
                    new[i] = new[i].wrapping_add(1);
                }
            }
            let first = old.iter().zip(&new).position(|(a, b)| a != b);
            let last = old.iter().zip(&new).rposition(|(a, b)| a != b);
            prop_assert_eq!(super::changed_span(&old, &new), first.zip(last));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::DirtySet;

    fn drain(d: &mut DirtySet, below: u32) -> Vec<(u32, u32, u32)> {
        let mut out = Vec::new();
        d.drain_below(below, |i, lo, hi| out.push((i, lo, hi)));
        out
    }

    #[test]
    fn drains_in_order_and_keeps_what_is_above() {
        let mut d = DirtySet::default();
        d.reserve(10_000);
        for &i in &[9_999, 4_096, 0, 63, 64, 4_095, 5_000] {
            d.mark(i, 4, 8);
        }
        d.mark(64, 0, 4);
        d.mark(64, 12, 16);
        assert_eq!(d.count(), 7);
        assert_eq!(drain(&mut d, 4_096), vec![(0, 4, 8), (63, 4, 8), (64, 0, 16), (4_095, 4, 8)]);
        assert_eq!(d.count(), 3);
        assert_eq!(drain(&mut d, 5_000), vec![(4_096, 4, 8)]);
        // Marked again after draining: a fresh span.
        d.mark(0, 8, 12);
        assert_eq!(drain(&mut d, u32::MAX), vec![(0, 8, 12), (5_000, 4, 8), (9_999, 4, 8)]);
        assert_eq!(d.count(), 0);
        assert!(drain(&mut d, u32::MAX).is_empty());
    }

    /// Spans equal to the common one, spans of their own, an instance widened
    /// past the common span, and a new common span once all were drained.
    #[test]
    fn common_and_own_spans_drain_as_marked() {
        let mut d = DirtySet::default();
        d.reserve(300);
        d.mark(10, 0, 64); // the common span
        d.mark(20, 0, 64);
        d.mark(30, 8, 16); // its own
        d.mark(40, 0, 64);
        d.mark(40, 4, 8); // inside the common span: still common
        d.mark(50, 0, 64);
        d.mark(50, 60, 80); // past it: its own, the union
        d.mark(30, 0, 4); // its own, widened
        let want = vec![(10, 0, 64), (20, 0, 64), (30, 0, 16), (40, 0, 64), (50, 0, 80)];
        assert_eq!(drain(&mut d, u32::MAX), want);
        d.mark(20, 16, 32); // a new common span after the drain
        d.mark(299, 16, 32);
        d.mark(30, 0, 64);
        assert_eq!(drain(&mut d, u32::MAX), vec![(20, 16, 32), (30, 0, 64), (299, 16, 32)]);
    }

    /// `uniform` gives the ends only while every dirty instance has the
    /// common span; `clear` then leaves nothing, and marking starts afresh.
    #[test]
    fn uniform_ends_hold_only_for_one_common_span() {
        let mut d = DirtySet::default();
        d.reserve(10_000);
        assert_eq!(d.uniform(), None, "nothing dirty");
        for i in [70, 4_100, 9_999, 64] {
            d.mark(i, 0, 64);
        }
        assert_eq!(d.uniform(), Some((64, 9_999, 0, 64)));
        d.mark(70, 8, 16); // inside the common span: still uniform
        assert_eq!(d.uniform(), Some((64, 9_999, 0, 64)));
        d.mark(5_000, 0, 4); // a span of its own
        assert_eq!(d.uniform(), None);
        assert_eq!(drain(&mut d, 5_001).last(), Some(&(5_000, 0, 4)));
        assert_eq!(d.uniform(), Some((9_999, 9_999, 0, 64)), "the own span drained");
        d.clear();
        assert_eq!((d.count(), d.uniform()), (0, None));
        assert!(drain(&mut d, u32::MAX).is_empty());
        d.mark(3, 4, 8);
        assert_eq!(d.uniform(), Some((3, 3, 4, 8)), "a new common span after clear");
    }

    #[test]
    fn clear_forgets_everything() {
        let mut d = DirtySet::default();
        d.reserve(200);
        (0..200).step_by(3).for_each(|i| d.mark(i, 0, 4));
        d.clear();
        assert_eq!(d.count(), 0);
        assert!(drain(&mut d, u32::MAX).is_empty());
        d.mark(199, 0, 4);
        assert_eq!(drain(&mut d, u32::MAX), vec![(199, 0, 4)]);
    }
}
