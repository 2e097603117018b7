//! Flag constraints: which combinations of an effect's flags a renderer can
//! build. Exclusive groups (`one_of`, `at_most_one`, Unity's `multi_compile`)
//! and implications (`[implies]`, and `[implies_one_of]`/`[implies_any_of]`
//! for a flag that needs one, or some, of a group). The whole-effect check enumerates only the
//! combinations they allow, and [`Effects::flags`](crate::effect::Effects::flags)
//! refuses the others, naming the rule.

use std::collections::{BTreeMap, HashSet};
use std::fmt;

use toml::Spanned;

/// A set of an effect's flags, one bit per flag in declaration order: room
/// for `MAX_FLAGS` (Bevy's PBR shader tests over a hundred definitions).
/// Here, where the rules over them live, so that the rules need no other module.
pub(crate) type Bits = u128;

/// One constraint, over flag bits, with the names it was written with.
#[derive(Clone, Debug)]
enum Rule {
    /// Exactly one of these is on.
    OneOf(Bits, Vec<String>),
    /// At most one of these is on.
    AtMostOne(Bits, Vec<String>),
    /// When the flag is on, all, exactly one, or some of these are.
    Implies((Bits, String), (Bits, Vec<String>), Needs),
}

/// What an implication needs of its group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Needs {
    All,
    OneOf,
    AnyOf,
}

impl Rule {
    fn allows(&self, bits: Bits) -> bool {
        match self {
            Rule::OneOf(g, _) => (bits & g).count_ones() == 1,
            Rule::AtMostOne(g, _) => (bits & g).count_ones() <= 1,
            Rule::Implies((f, _), (g, _), how) => {
                bits & f == 0
                    || match how {
                        Needs::All => bits & g == *g,
                        Needs::OneOf => (bits & g).count_ones() == 1,
                        Needs::AnyOf => bits & g != 0,
                    }
            }
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |names: &[String]| names.iter().map(|n| format!("\"{n}\"")).collect::<Vec<_>>().join(", ");
        match self {
            Rule::OneOf(_, names) => write!(f, "`one_of = [{}]` needs exactly one of them on", list(names)),
            Rule::AtMostOne(_, names) => {
                write!(f, "`at_most_one = [{}]` allows at most one of them on", list(names))
            }
            Rule::Implies((_, flag), (_, names), Needs::All) => {
                write!(f, "`implies.{flag} = [{}]`: `{flag}` needs them on", list(names))
            }
            Rule::Implies((_, flag), (_, names), Needs::OneOf) => {
                write!(
                    f,
                    "`implies_one_of.{flag} = [{}]`: `{flag}` needs exactly one of them on",
                    list(names)
                )
            }
            Rule::Implies((_, flag), (_, names), Needs::AnyOf) => {
                write!(f, "`implies_any_of.{flag} = [{}]`: `{flag}` needs one of them on", list(names))
            }
        }
    }
}

/// An effect's flag constraints. Cost: a few bit operations per rule for
/// each combination tested.
#[derive(Clone, Debug, Default)]
pub struct FlagRules {
    rules: Vec<Rule>,
}

/// The constraint keys of an effect file, as written.
pub(crate) struct Written<'a> {
    pub(crate) one_of: &'a [Spanned<Vec<Spanned<String>>>],
    pub(crate) at_most_one: &'a [Spanned<Vec<Spanned<String>>>],
    pub(crate) implies: &'a BTreeMap<Spanned<String>, Vec<Spanned<String>>>,
    pub(crate) implies_one_of: &'a BTreeMap<Spanned<String>, Vec<Spanned<String>>>,
    pub(crate) implies_any_of: &'a BTreeMap<Spanned<String>, Vec<Spanned<String>>>,
}

impl FlagRules {
    /// Reads the constraints against the effect's `flags`; `Err` gives the
    /// span of what is wrong and why.
    pub(crate) fn parse(
        written: &Written<'_>,
        flags: &[String],
    ) -> Result<Self, (std::ops::Range<usize>, String)> {
        let bit = |name: &Spanned<String>| match flags.iter().position(|f| f == name.get_ref()) {
            Some(i) => Ok((1 as Bits) << i),
            None => Err((name.span(), format!("`{}` is not one of the effect's flags", name.get_ref()))),
        };
        let group = |key: &str, names: &Spanned<Vec<Spanned<String>>>| {
            let mut bits: Bits = 0;
            for name in names.get_ref() {
                let b = bit(name)?;
                if bits & b != 0 {
                    return Err((
                        name.span(),
                        format!("`{}` is in this `{key}` group twice", name.get_ref()),
                    ));
                }
                bits |= b;
            }
            if names.get_ref().len() < 2 {
                return Err((names.span(), format!("each `{key}` group names at least two flags")));
            }
            Ok((bits, names.get_ref().iter().map(|n| n.get_ref().clone()).collect::<Vec<_>>()))
        };
        let mut rules = Vec::new();
        for names in written.one_of {
            let (bits, names) = group("one_of", names)?;
            rules.push(Rule::OneOf(bits, names));
        }
        for names in written.at_most_one {
            let (bits, names) = group("at_most_one", names)?;
            rules.push(Rule::AtMostOne(bits, names));
        }
        let tables = [
            (written.implies, Needs::All),
            (written.implies_one_of, Needs::OneOf),
            (written.implies_any_of, Needs::AnyOf),
        ];
        for (table, how) in tables {
            for (flag, needs) in table {
                let f = bit(flag)?;
                let mut bits: Bits = 0;
                for name in needs {
                    bits |= bit(name)?;
                }
                if bits & f != 0 {
                    return Err((flag.span(), format!("`{}` cannot imply itself", flag.get_ref())));
                }
                if needs.is_empty() {
                    return Err((flag.span(), format!("`{}` implies no flag", flag.get_ref())));
                }
                let names = needs.iter().map(|n| n.get_ref().clone()).collect();
                rules.push(Rule::Implies((f, flag.get_ref().clone()), (bits, names), how));
            }
        }
        Ok(Self { rules })
    }

    /// The first constraint `bits` breaks, in words.
    pub(crate) fn broken(&self, bits: Bits) -> Option<String> {
        self.rules.iter().find(|r| !r.allows(bits)).map(ToString::to_string)
    }

    /// Whether some combination of the flags meets every constraint. A
    /// search too long to finish (rule sets far past any real effect's)
    /// counts as satisfiable: only a proven contradiction is refused.
    pub(crate) fn satisfiable(&self) -> bool {
        let free = self.mentioned();
        let mut search = Search::new(&self.rules, free, SEARCH_STEPS);
        let order = search.order(free);
        search.first(0, 0, &order, None).is_some() || search.steps == 0
    }

    /// Every constraint, in words, in the order the file gives them.
    pub fn describe(&self) -> Vec<String> {
        self.rules.iter().map(ToString::to_string).collect()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// The flags any constraint names.
    fn mentioned(&self) -> Bits {
        self.rules.iter().fold(0, |m, r| m | r.flags())
    }

    /// The combinations the whole-effect check composes, over the `tested`
    /// flags, and whether they are every one the constraints allow. Flags
    /// that only constraints name take part, then drop out: `one_of` over a
    /// tested and an untested flag allows the tested one off.
    ///
    /// The allowed combinations are found by a search that prunes any
    /// partial choice a rule rules out (never walking all `2^n`), in
    /// ascending order, while there are at most `limit`. Above that: no
    /// flag, each flag alone, each pair and all of them, each moved to the
    /// allowed combination nearest it.
    pub(crate) fn combinations(&self, tested: Bits, limit: usize) -> (Vec<Bits>, bool) {
        let free = tested | self.mentioned();
        let mut search = Search::new(&self.rules, free, SEARCH_STEPS);
        let mut out = Vec::new();
        let tested_first = search.order(tested);
        let rest = search.order(free & !tested);
        if search.each(0, 0, &tested_first, &rest, &mut |bits| {
            out.push(bits & tested);
            out.len() <= limit
        }) {
            return (out, true);
        }
        let singles = search.order(free);
        let mut samples = vec![0, free];
        for (k, a) in singles.iter().enumerate() {
            samples.push(*a);
            samples.extend(singles[k + 1..].iter().map(|b| a | b));
        }
        let (mut seen, mut out) = (HashSet::new(), Vec::new());
        for sample in samples {
            let mut search = Search::new(&self.rules, free, SAMPLE_STEPS);
            if let Some(bits) = search.first(0, 0, &singles, Some(sample)) {
                if seen.insert(bits & tested) {
                    out.push(bits & tested);
                }
            }
        }
        (out, false)
    }
}

impl FlagRules {
    /// How many combinations of the `tested` flags the rules allow, each
    /// counted once whatever the untested flags do, without walking them
    /// one by one: flags no rule links are independent, so the count is the
    /// product of each linked group's (Bevy's meshlet material allows over
    /// three million, counted in thousands of steps). `None` past `u64` or
    /// where the count runs past its steps.
    pub(crate) fn count(&self, tested: Bits) -> Option<u64> {
        let groups = linked(self.rules.iter().map(Rule::flags));
        let mut steps = SEARCH_STEPS;
        let mut total = 1u64;
        for &group in &groups {
            let rules = self.rules.iter().filter(|r| r.flags() & group != 0).collect::<Vec<_>>();
            let n = match group & !tested {
                0 => models(&rules, 0, group, &mut steps)?,
                // Flags only rules name: count the tested choices some choice of them completes.
                _ => {
                    let rules = rules.into_iter().cloned().collect::<Vec<_>>();
                    let mut search = Search::new(&rules, group, steps);
                    let (mine, rest) = (search.order(group & tested), search.order(group & !tested));
                    let mut n = 0u64;
                    let every = search.each(0, 0, &mine, &rest, &mut |_| {
                        n += 1;
                        true
                    });
                    steps = search.steps;
                    if !every {
                        return None;
                    }
                    n
                }
            };
            total = total.checked_mul(n)?;
        }
        let linked = groups.iter().fold(0, |m, g| m | g);
        match total {
            0 => Some(0),
            _ => total.checked_mul(1u64.checked_shl((tested & !linked).count_ones())?),
        }
    }
}

/// The flags of `masks` in groups that no mask links: masks that share a
/// flag, directly or through others, are in one group.
fn linked(masks: impl Iterator<Item = Bits>) -> Vec<Bits> {
    let mut groups: Vec<Bits> = Vec::new();
    for mut group in masks {
        groups.retain(|&g| {
            let joins = g & group != 0;
            group |= if joins { g } else { 0 };
            !joins
        });
        groups.push(group);
    }
    groups
}

/// The combinations of the `open` flags that meet `rules`, with the flags
/// in `on` on and the rules' other flags off: split into groups no rule
/// links, each counted by choosing one flag off, then on (a model count).
/// `None` past `u64` or when `steps` run out.
fn models(rules: &[&Rule], on: Bits, open: Bits, steps: &mut usize) -> Option<u64> {
    *steps = steps.checked_sub(1)?;
    if !rules.iter().all(|r| r.can_hold(on, open)) {
        return Some(0);
    }
    // A rule every choice of its open flags meets links them no more.
    let active = rules.iter().copied().filter(|r| !r.settled(on, open)).collect::<Vec<_>>();
    let groups = linked(active.iter().map(|r| r.flags() & open));
    let mut total = 1u64;
    for &group in &groups {
        let rules = active.iter().copied().filter(|r| r.flags() & group != 0).collect::<Vec<_>>();
        // An implication's own flag first: either way, it settles at once or forces its group.
        let trigger = rules.iter().find_map(|r| match r {
            Rule::Implies((f, _), ..) if f & group != 0 => Some(*f),
            _ => None,
        });
        let flag = trigger.unwrap_or(group & group.wrapping_neg());
        let off = models(&rules, on, group & !flag, steps)?;
        let with = models(&rules, on | flag, group & !flag, steps)?;
        total = total.checked_mul(off.checked_add(with)?)?;
    }
    let linked = groups.iter().fold(0, |m, g| m | g);
    match total {
        0 => Some(0),
        _ => total.checked_mul(1u64.checked_shl((open & !linked).count_ones())?),
    }
}

impl Rule {
    /// Every flag the rule names.
    fn flags(&self) -> Bits {
        match self {
            Rule::OneOf(g, _) | Rule::AtMostOne(g, _) => *g,
            Rule::Implies((f, _), (g, _), _) => f | g,
        }
    }

    /// Whether every choice of its `open` flags meets the rule, with those
    /// in `on` on and its others off (where [`Rule::can_hold`]).
    fn settled(&self, on: Bits, open: Bits) -> bool {
        match self {
            Rule::OneOf(g, _) => g & open == 0,
            Rule::AtMostOne(g, _) => (on & g).count_ones() + (open & g).count_ones() <= 1,
            Rule::Implies((f, _), (g, _), needs) => {
                (on | open) & f == 0
                    || match needs {
                        Needs::All => g & !on == 0,
                        Needs::OneOf => g & open == 0 && (on & g).count_ones() == 1,
                        Needs::AnyOf => on & g != 0,
                    }
            }
        }
    }

    /// Whether some choice of its `open` flags meets the rule, with those
    /// in `on` on and its others off.
    fn can_hold(&self, on: Bits, open: Bits) -> bool {
        let one = |g: &Bits| (on & g).count_ones() == 1 || ((on & g) == 0 && g & open != 0);
        match self {
            Rule::OneOf(g, _) => one(g),
            Rule::AtMostOne(g, _) => (on & g).count_ones() <= 1,
            Rule::Implies((f, _), (g, _), needs) => {
                on & f == 0
                    || match needs {
                        Needs::All => g & !(on | open) == 0,
                        Needs::OneOf => one(g),
                        Needs::AnyOf => on & g != 0 || g & open != 0,
                    }
            }
        }
    }
}

/// Search steps for the whole of one question; a rule set that needs more
/// is far past what any effect writes (Bevy's largest settles in thousands).
const SEARCH_STEPS: usize = 1 << 22;
/// Search steps for one sample's nearest allowed combination.
const SAMPLE_STEPS: usize = 1 << 14;

/// A depth-first search over flag choices, one flag at a time, that drops
/// every partial choice some rule can no longer be met under.
struct Search<'a> {
    rules: &'a [Rule],
    /// The flags that take part; the others stay off.
    free: Bits,
    /// Steps left; at 0 the search stops, unfinished.
    steps: usize,
}

impl<'a> Search<'a> {
    fn new(rules: &'a [Rule], free: Bits, steps: usize) -> Self {
        Self { rules, free, steps }
    }

    /// The single bits of `bits`, highest first (so that trying each off,
    /// then on, visits combinations in ascending order).
    fn order(&self, bits: Bits) -> Vec<Bits> {
        (0..Bits::BITS).rev().map(|i| (1 as Bits) << i).filter(|b| bits & b != 0).collect()
    }

    /// Whether every rule can still be met, with `on` on, `off` off and the
    /// other free flags still open.
    fn open(&self, on: Bits, off: Bits) -> bool {
        let open = self.free & !(on | off);
        self.rules.iter().all(|rule| rule.can_hold(on, open))
    }

    /// The first allowed combination choosing the flags of `order` (the
    /// others are off), trying each as `prefer` has it first (off, without
    /// `prefer`).
    fn first(&mut self, on: Bits, off: Bits, order: &[Bits], prefer: Option<Bits>) -> Option<Bits> {
        let Some((&flag, rest)) = order.split_first() else {
            return Some(on);
        };
        let choices = match prefer {
            Some(p) if p & flag != 0 => [true, false],
            _ => [false, true],
        };
        for set in choices {
            if self.steps == 0 {
                return None;
            }
            self.steps -= 1;
            let (on, off) = if set { (on | flag, off) } else { (on, off | flag) };
            if self.open(on, off) {
                if let Some(found) = self.first(on, off, rest, prefer) {
                    return Some(found);
                }
            }
        }
        None
    }

    /// Calls `found` with each choice of the flags of `order` that some
    /// choice of `rest` completes into an allowed combination (the first
    /// such completion), in ascending order, until it returns false.
    /// Whether it went through every one.
    fn each(
        &mut self,
        on: Bits,
        off: Bits,
        order: &[Bits],
        rest: &[Bits],
        found: &mut dyn FnMut(Bits) -> bool,
    ) -> bool {
        let Some((&flag, tail)) = order.split_first() else {
            return match self.first(on, off, rest, None) {
                Some(bits) => found(bits),
                None => self.steps > 0,
            };
        };
        for (on, off) in [(on, off | flag), (on | flag, off)] {
            if self.steps == 0 {
                return false;
            }
            self.steps -= 1;
            if self.open(on, off) && !self.each(on, off, tail, rest, found) {
                return false;
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The count against every combination walked, for random rule sets of
    /// each kind over 10 flags, with some flags only rules name.
    #[test]
    fn the_count_equals_the_combinations_walked() {
        struct Rng(u64);
        impl Rng {
            fn below(&mut self, n: u64) -> u64 {
                self.0 ^= self.0 << 13;
                self.0 ^= self.0 >> 7;
                self.0 ^= self.0 << 17;
                self.0 % n
            }
            fn group(&mut self, min: u32) -> Bits {
                loop {
                    let g = self.below(1 << 10) as Bits;
                    if g.count_ones() >= min {
                        return g;
                    }
                }
            }
        }
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for _ in 0..300 {
            let rules = (0..1 + rng.below(5))
                .map(|_| match rng.below(5) {
                    0 => Rule::OneOf(rng.group(2), vec![]),
                    1 => Rule::AtMostOne(rng.group(2), vec![]),
                    k => {
                        let f = 1 << rng.below(10);
                        let needs = [Needs::All, Needs::OneOf, Needs::AnyOf][k as usize - 2];
                        Rule::Implies((f, String::new()), (rng.group(1) & !f, vec![]), needs)
                    }
                })
                .filter(|r| !matches!(r, Rule::Implies(_, (0, _), _)))
                .collect::<Vec<_>>();
            let rules = FlagRules { rules };
            let tested = rng.below(1 << 10) as Bits;
            let free = tested | rules.mentioned();
            let walked = (0..1u128 << 10)
                .filter(|b| b & !free == 0 && rules.rules.iter().all(|r| r.allows(*b)))
                .map(|b| b & tested)
                .collect::<HashSet<_>>();
            assert_eq!(rules.count(tested), Some(walked.len() as u64), "{:?} over {tested:b}", rules.rules);
            assert_eq!(rules.combinations(tested, 1 << 12).0.len(), walked.len());
            // Every flag tested: each linked group is model-counted.
            let every = (0..1u128 << 10).filter(|b| rules.rules.iter().all(|r| r.allows(*b))).count();
            assert_eq!(rules.count((1 << 10) - 1), Some(every as u64), "{:?}", rules.rules);
        }
    }

    /// An implication over 21 flags allows 2^21 + 1 combinations, counted
    /// in a few steps (walked one by one, they took more than the search has).
    #[test]
    fn a_wide_implication_is_counted_without_walking_it() {
        let group = ((1 << 21) - 1) << 1;
        let rules = FlagRules { rules: vec![Rule::Implies((1, String::new()), (group, vec![]), Needs::All)] };
        assert_eq!(rules.count(group | 1), Some((1 << 21) + 1));
        let any = FlagRules { rules: vec![Rule::Implies((1, String::new()), (group, vec![]), Needs::AnyOf)] };
        assert_eq!(any.count(group | 1), Some((1 << 21) + (1 << 21) - 1));
    }
}
