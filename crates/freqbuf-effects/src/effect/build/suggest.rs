//! Rules that would exclude failing combinations: every allowed combination
//! composed on its own, then, greedily, the smallest rules (`at_most_one`
//! over a pair, `implies` of a pair) that exclude the most failures and
//! keep every combination that composes. Bevy 0.20.1's rules took 80
//! hand-written groups; this finds the ones a tree's failures call for.

use crate::effect::library::{EXHAUSTIVE_COMBINATIONS, Effects};
use crate::effect::reports::{SuggestedRule, Suggestions};
use crate::effect::types::{Bits, EffectId, FlagSet};
use crate::error::EffectError;

/// A candidate rule over two flags (bit indices).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Candidate {
    /// Both on is excluded.
    AtMostOne(u32, u32),
    /// The first on with the second off is excluded.
    Implies(u32, u32),
}

impl Candidate {
    fn excludes(self, bits: Bits) -> bool {
        let on = |i: u32| bits & (1 << i) != 0;
        match self {
            Candidate::AtMostOne(a, b) => on(a) && on(b),
            Candidate::Implies(a, b) => on(a) && !on(b),
        }
    }
}

impl Effects {
    /// Composes every combination of effect `id`'s flags that its rules
    /// allow (above [`EXHAUSTIVE_COMBINATIONS`], the check's sample), each
    /// on its own, and suggests the smallest rules that exclude the ones
    /// that fail while keeping every one that composes, as
    /// `freqbuf effect --suggest-rules` prints them. Nothing is registered.
    ///
    /// Cost: a composition and reflection per combination (what the
    /// whole-effect check composes), then for each failure a pass over the
    /// passing combinations per pair of its flags.
    pub fn suggest_rules(&mut self, id: EffectId) -> Result<Suggestions, EffectError> {
        let effect = self.checked(id, "effect id")?;
        let (combos, exhaustive) = effect.rules.combinations(effect.tested, EXHAUSTIVE_COMBINATIONS);
        let parts = effect.stage_files.len() as u32 + 1;
        let (mut passing, mut failing) = (Vec::new(), Vec::new());
        for &bits in &combos {
            // Only what was kept before stays: a tree's worth of modules would not.
            let kept = self.permutations.composed_parts(id.index, bits, parts);
            match self.pass_reflections(FlagSet { effect: id, bits }) {
                Ok(_) => passing.push(bits),
                Err(e) => failing.push((bits, crate::error::chain(&e).replace('\n', " "))),
            }
            self.permutations.drop_composed_but(id.index, bits, parts, &kept);
        }
        let effect = self.effect(id);
        let names = |bits: Bits| effect.flags_on(bits).into_iter().map(str::to_owned).collect::<Vec<_>>();
        let (rules, unexplained) = cover(&passing, &failing.iter().map(|f| f.0).collect::<Vec<_>>());
        let rules = rules
            .into_iter()
            .map(|(c, excluded)| SuggestedRule {
                rule: match c {
                    Candidate::AtMostOne(a, b) => format!(
                        "at_most_one = [[\"{}\", \"{}\"]]",
                        effect.flags[a as usize], effect.flags[b as usize]
                    ),
                    Candidate::Implies(a, b) => {
                        format!("implies.{} = [\"{}\"]", effect.flags[a as usize], effect.flags[b as usize])
                    }
                },
                excludes: excluded.into_iter().map(names).collect(),
            })
            .collect();
        Ok(Suggestions {
            checked: combos.len(),
            exhaustive,
            failures: failing.into_iter().map(|(b, e)| (names(b), e)).collect(),
            rules,
            unexplained: unexplained.into_iter().map(names).collect(),
        })
    }
}

/// Greedy set cover: the candidate that excludes the most failures not yet
/// excluded and no passing combination, until none excludes another.
fn cover(passing: &[Bits], failing: &[Bits]) -> (Vec<(Candidate, Vec<Bits>)>, Vec<Bits>) {
    // With nothing composing, any rule "keeps every combination that composes": none helps.
    if passing.is_empty() {
        return (Vec::new(), failing.to_vec());
    }
    // Only flags some combination has on take part.
    let seen = passing.iter().chain(failing).fold(0, |m: Bits, b| m | b);
    let flags = (0..Bits::BITS).filter(|i| seen & (1 << i) != 0).collect::<Vec<_>>();
    let mut candidates = Vec::new();
    for (k, &a) in flags.iter().enumerate() {
        candidates.extend(flags[k + 1..].iter().map(|&b| Candidate::AtMostOne(a, b)));
        candidates.extend(flags.iter().filter(|&&b| b != a).map(|&b| Candidate::Implies(a, b)));
    }
    candidates.retain(|c| failing.iter().any(|&f| c.excludes(f)) && !passing.iter().any(|&p| c.excludes(p)));
    let mut left = failing.to_vec();
    let mut chosen = Vec::new();
    loop {
        // Most excluded; on a tie, the first candidate (pairs in flag order).
        let best = candidates
            .iter()
            .map(|&c| (left.iter().filter(|&&f| c.excludes(f)).count(), c))
            .max_by(|x, y| x.0.cmp(&y.0).then(y.1.cmp(&x.1)));
        let Some((_, c)) = best.filter(|b| b.0 > 0) else { break };
        let (excluded, rest): (Vec<Bits>, Vec<Bits>) = left.into_iter().partition(|&f| c.excludes(f));
        chosen.push((c, excluded));
        left = rest;
    }
    (chosen, left)
}
