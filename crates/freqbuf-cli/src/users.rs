//! Who uses a slot or a resource list, in a line: an effect's permutations
//! are named `effect[FLAG+FLAG]` (`[no flags]`), with a `[entry]` suffix where
//! registered narrowed to entry points. A slot of a 12-flag effect has
//! thousands of users, so the text output names each effect's share as
//! "all N permutations" or by the flags that select it; `--verbose` lists
//! every name, and the JSON always does.

use std::collections::{BTreeMap, BTreeSet};

/// A registered shader name taken apart: (effect, flags on, suffix).
fn parse(name: &str) -> Option<(&str, BTreeSet<&str>, &str)> {
    let open = name.find('[')?;
    let close = open + name[open..].find(']')?;
    let flags = &name[open + 1..close];
    let set = match flags {
        "no flags" => BTreeSet::new(),
        _ => flags.split('+').collect(),
    };
    Some((&name[..open], set, &name[close + 1..]))
}

/// Every shader name of the registry, to know each effect's permutations.
pub(crate) struct Universe<'a> {
    /// (effect, suffix) → the flag sets registered.
    sets: BTreeMap<(&'a str, &'a str), BTreeSet<BTreeSet<&'a str>>>,
}

impl<'a> Universe<'a> {
    pub(crate) fn new(names: impl Iterator<Item = &'a str>) -> Self {
        let mut sets: BTreeMap<_, BTreeSet<_>> = BTreeMap::new();
        for (effect, flags, suffix) in names.filter_map(parse) {
            sets.entry((effect, suffix)).or_default().insert(flags);
        }
        Self { sets }
    }

    /// `users` in one line: plain shaders by name, each effect's
    /// permutations as a count and, where it is not all of them, the flags
    /// every one of them has on or off when those select exactly them.
    pub(crate) fn summarise(&self, users: &[&'a str]) -> String {
        let mut plain = Vec::new();
        let mut groups: BTreeMap<(&str, &str), BTreeSet<BTreeSet<&str>>> = BTreeMap::new();
        for &name in users {
            match parse(name) {
                Some((effect, flags, suffix)) => {
                    groups.entry((effect, suffix)).or_default().insert(flags);
                }
                None => plain.push(name.to_owned()),
            }
        }
        for ((effect, suffix), used) in groups {
            let all = &self.sets[&(effect, suffix)];
            let shown = if suffix.is_empty() { effect.to_owned() } else { format!("{effect}[…]{suffix}") };
            let n = all.len();
            let text = if used.len() == n {
                match n {
                    1 => format!("{shown} (its one permutation)"),
                    _ => format!("{shown} (all {n} permutations)"),
                }
            } else {
                match selecting(all, &used) {
                    Some(flags) => format!("{shown} ({} of {n} permutations: {flags})", used.len()),
                    None => format!("{shown} ({} of {n} permutations; --verbose lists them)", used.len()),
                }
            };
            plain.push(text);
        }
        plain.join(", ")
    }
}

/// "with A, without B" when the flags every set in `used` has on (A) and
/// off (B) pick out exactly `used` among `all`.
fn selecting(all: &BTreeSet<BTreeSet<&str>>, used: &BTreeSet<BTreeSet<&str>>) -> Option<String> {
    let flags = all.iter().flatten().copied().collect::<BTreeSet<_>>();
    let on = flags.iter().filter(|f| used.iter().all(|s| s.contains(*f))).copied().collect::<Vec<_>>();
    let off = flags.iter().filter(|f| used.iter().all(|s| !s.contains(*f))).copied().collect::<Vec<_>>();
    let matches =
        all.iter().filter(|s| on.iter().all(|f| s.contains(f)) && off.iter().all(|f| !s.contains(f)));
    if (on.is_empty() && off.is_empty()) || matches.count() != used.len() {
        return None;
    }
    let mut parts = Vec::new();
    if !on.is_empty() {
        parts.push(format!("with {}", on.join(", ")));
    }
    if !off.is_empty() {
        parts.push(format!("without {}", off.join(", ")));
    }
    Some(parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: [&str; 5] = ["lit[no flags]", "lit[A]", "lit[B]", "lit[A+B]", "plain"];

    #[test]
    fn all_some_and_unselectable_shares_read_as_one_line() {
        let u = Universe::new(NAMES.into_iter().chain(["lit[A][vs]"]));
        assert_eq!(u.summarise(&NAMES), "plain, lit (all 4 permutations)");
        assert_eq!(u.summarise(&["lit[A]", "lit[A+B]"]), "lit (2 of 4 permutations: with A)");
        assert_eq!(u.summarise(&["lit[no flags]"]), "lit (1 of 4 permutations: without A, B)");
        assert_eq!(u.summarise(&["lit[A]", "lit[B]"]), "lit (2 of 4 permutations; --verbose lists them)");
        assert_eq!(u.summarise(&["lit[A][vs]"]), "lit[…][vs] (its one permutation)");
    }
}
