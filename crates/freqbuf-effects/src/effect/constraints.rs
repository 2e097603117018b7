//! Flag constraints: which combinations of an effect's flags a renderer can
//! build. Exclusive groups (`one_of`, `at_most_one`, Unity's `multi_compile`)
//! and implications (`[implies]`, and `[implies_one_of]`/`[implies_any_of]`
//! for a flag that needs one, or some, of a group). The whole-effect check enumerates only the
//! combinations they allow, and [`Effects::flags`](super::Effects::flags)
//! refuses the others, naming the rule.

use std::collections::{BTreeMap, HashSet};
use std::fmt;

use toml::Spanned;

use super::types::Bits;

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

    /// Whether the constraints allow the flags in `bits` on together.
    pub(crate) fn allows(&self, bits: Bits) -> bool {
        self.rules.iter().all(|r| r.allows(bits))
    }

    /// The first constraint `bits` breaks, in words.
    pub(crate) fn broken(&self, bits: Bits) -> Option<String> {
        self.rules.iter().find(|r| !r.allows(bits)).map(ToString::to_string)
    }

    /// Whether some combination of the flags meets every constraint.
    pub(crate) fn satisfiable(&self) -> bool {
        !self.combinations(0, usize::MAX).0.is_empty()
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
        self.rules.iter().fold(0, |m, r| match r {
            Rule::OneOf(g, _) | Rule::AtMostOne(g, _) => m | g,
            Rule::Implies((f, _), (g, _), _) => m | f | g,
        })
    }

    /// `bits` moved to an allowed combination near it: implied flags switched
    /// on, all but the first of a group switched off, the first of an empty
    /// `one_of` switched on. `None` where that does not settle.
    fn repair(&self, mut bits: Bits) -> Option<Bits> {
        let lowest = |b: Bits| b & b.wrapping_neg();
        for _ in 0..8 {
            if self.allows(bits) {
                return Some(bits);
            }
            for rule in &self.rules {
                match rule {
                    Rule::Implies((f, _), (g, _), Needs::All) if bits & f != 0 => bits |= g,
                    Rule::Implies((f, _), (g, _), Needs::OneOf)
                        if bits & f != 0 && (bits & g).count_ones() > 1 =>
                    {
                        bits &= !g | lowest(bits & g);
                    }
                    Rule::Implies((f, _), (g, _), _) if bits & f != 0 && bits & g == 0 => bits |= lowest(*g),
                    Rule::OneOf(g, _) | Rule::AtMostOne(g, _) if (bits & g).count_ones() > 1 => {
                        bits &= !g | lowest(bits & g);
                    }
                    Rule::OneOf(g, _) if bits & g == 0 => bits |= lowest(*g),
                    _ => {}
                }
            }
        }
        self.allows(bits).then_some(bits)
    }

    /// The combinations the whole-effect check composes, over the `tested`
    /// flags, and whether they are every one the constraints allow. Flags
    /// that only constraints name take part, then drop out: `one_of` over a
    /// tested and an untested flag allows the tested one off.
    ///
    /// All allowed combinations are taken while there are at most `limit`;
    /// above that (or above 20 free flags, where listing them is too
    /// costly), no flag, each flag alone, each pair and all of them, each
    /// moved to an allowed combination near it.
    pub(crate) fn combinations(&self, tested: Bits, limit: usize) -> (Vec<Bits>, bool) {
        let free = tested | self.mentioned();
        let keep = |bits: Bits, seen: &mut HashSet<Bits>, out: &mut Vec<Bits>| {
            if seen.insert(bits & tested) {
                out.push(bits & tested);
            }
        };
        if free.count_ones() <= 20 {
            let (mut seen, mut out) = (HashSet::new(), Vec::new());
            // Every subset of `free`, the empty one first.
            let mut sub: Bits = 0;
            loop {
                if self.allows(sub) {
                    keep(sub, &mut seen, &mut out);
                }
                if out.len() > limit {
                    break;
                }
                sub = sub.wrapping_sub(free) & free;
                if sub == 0 {
                    return (out, true);
                }
            }
        }
        let (mut seen, mut out) = (HashSet::new(), Vec::new());
        let singles = (0..Bits::BITS).map(|i| (1 as Bits) << i).filter(|b| free & b != 0).collect::<Vec<_>>();
        let mut samples = vec![0, free];
        for (k, a) in singles.iter().enumerate() {
            samples.push(*a);
            samples.extend(singles[k + 1..].iter().map(|b| a | b));
        }
        for bits in samples.into_iter().filter_map(|b| self.repair(b)) {
            keep(bits, &mut seen, &mut out);
        }
        (out, false)
    }
}
