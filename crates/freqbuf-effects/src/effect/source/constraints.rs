//! Flag constraints: which combinations of an effect's flags a renderer can
//! build. Exclusive groups (`one_of`, `at_most_one`, Unity's `multi_compile`)
//! and implications (`[implies]`, and `[implies_one_of]`/`[implies_any_of]`
//! for a flag that needs one, or some, of a group). The whole-effect check enumerates only the
//! combinations they allow, and [`Effects::flags`](crate::effect::Effects::flags)
//! refuses the others, naming the rule.

use std::collections::{BTreeMap, HashSet};
use std::fmt;

use toml::Spanned;

mod count;

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
