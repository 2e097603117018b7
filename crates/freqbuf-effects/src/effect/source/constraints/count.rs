//! Counting what the flag rules allow without walking it: the number a
//! sampled whole-effect check reports as `CheckReport::allowed`.

use super::{Bits, FlagRules, Rule, SEARCH_STEPS, Search};

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

#[cfg(test)]
mod tests {
    use super::super::Needs;
    use super::*;
    use std::collections::HashSet;

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
