//! The whole-effect check: every flag combination composed and merged
//! before anything is drawn.

use crate::effect::library::{EXHAUSTIVE_COMBINATIONS, Effects};
use crate::effect::types::{Bits, CheckReport, EffectId, FlagSet};
use crate::error::{EffectError, EffectErrorKind};
use freqbuf::Registry;

/// Combinations a check keeps composed for warming and the first draws.
/// The serial path's whole range: a check on threads composes on the
/// workers' libraries, whose compositions are not this one's.
const KEEP_COMPOSED: usize = 15;

/// Most allowed combinations for which a failed check finds the rule that
/// would exclude the failure: finding it composes every one of them again
/// (about 4 ms each on lavapipe's 2 cores, so 4 s at most).
pub const SUGGEST_WITHIN: usize = 1024;

impl Effects {
    /// The whole-effect check: composes the permutations and merges them
    /// into a copy of `registry` (nothing is registered), proving that they
    /// agree with each other and with the registered shaders on one layout
    /// per slot. `only`: one flag set instead of all.
    ///
    /// Every combination of the flags the source tests that the effect's
    /// constraints allow is checked while there are at most
    /// [`EXHAUSTIVE_COMBINATIONS`], whatever the flag count; above that, no flag, each flag alone, each
    /// pair and all of them, each moved to an allowed combination near it
    /// (`CheckReport::exhaustive` is then false).
    pub fn check(
        &mut self,
        registry: &Registry,
        id: EffectId,
        only: Option<FlagSet>,
    ) -> Result<CheckReport, EffectError> {
        self.merge(&mut registry.scratch(), id, only)
    }

    /// Like [`Effects::check`], but merges into `registry` itself, which then
    /// holds the permutations' merged slots (what `freqbuf effect` prints).
    /// On a conflict, the permutations before the conflicting one stay merged.
    pub fn merge(
        &mut self,
        registry: &mut Registry,
        id: EffectId,
        only: Option<FlagSet>,
    ) -> Result<CheckReport, EffectError> {
        // Only the whole-effect check names a rule: a material's first use
        // (`merge_for` with a device) must not compose every combination again.
        match self.merge_for(registry, id, only, None) {
            Err(e) if only.is_none() && e.kind.is_composition() => Err(self.with_rule(id, e)),
            r => r,
        }
    }

    /// `e`, a combination's failure to compose, with the rule that would
    /// exclude it where [`Effects::suggest_rules`] finds one: only where the
    /// rules allow at most [`SUGGEST_WITHIN`] combinations, since it
    /// composes each (on the error path only).
    fn with_rule(&mut self, id: EffectId, mut e: EffectError) -> EffectError {
        // No pair rule excludes the combination with no flag on.
        let flags = e.kind.flags().unwrap_or("no flags").to_owned();
        if flags == "no flags" {
            return e;
        }
        let effect = self.effect(id);
        // Counted, not walked: above the limit a walk stops at a sample, whose size says nothing.
        if effect.rules.count(effect.tested).is_none_or(|n| n > SUGGEST_WITHIN as u64) {
            return e;
        }
        let Ok(found) = self.suggest_rules(id) else { return e };
        // The kinds name a combination as `Effect::describe` does: flags joined by `+`.
        let rule = found.rules.into_iter().find(|r| r.excludes.iter().any(|x| x.join("+") == flags));
        if let Some(r) = rule {
            e.kind = Box::new(EffectErrorKind::Excludable { rule: r.rule, cause: e.kind });
        }
        e
    }

    /// [`Effects::merge`] of the permutations `device` can register: those
    /// whose device flags are as it sets them (all, without a device).
    pub(crate) fn merge_for(
        &mut self,
        registry: &mut Registry,
        id: EffectId,
        only: Option<FlagSet>,
        device: Option<&wgpu::Device>,
    ) -> Result<CheckReport, EffectError> {
        let effect = self.checked(id, "effect id")?;
        if let Some(f) = only.filter(|f| f.effect != id) {
            self.checked(f.effect, "flag set")?;
            return Err(EffectError {
                file: effect.name.clone(),
                location: None,
                kind: Box::new(EffectErrorKind::OtherEffect {
                    pass: "(merge)".into(),
                    effect: effect.name.clone(),
                    family: effect.family.clone(),
                    flags_effect: self.effect(f.effect).name.clone(),
                    flags_family: self.effect(f.effect).family.clone(),
                }),
            });
        }
        let (combos, exhaustive) = match only {
            Some(f) => (vec![f.bits & effect.tested], false),
            None => effect.rules.combinations(effect.tested, EXHAUSTIVE_COMBINATIONS),
        };
        let checked = combos.len();
        let combos = self.distinct(id, combos);
        let report = CheckReport {
            permutations: checked,
            distinct: combos.len(),
            exhaustive: exhaustive && only.is_none(),
            allowed: match (only, exhaustive) {
                (Some(_), _) => None,
                (None, true) => Some(checked as u64),
                (None, false) => effect.rules.count(effect.tested),
            },
        };
        // Each setting of the device flags is a layout set of its own: one
        // device never registers both (Bevy's BINDLESS uniform block and slab).
        let (effect, mask) = (self.effect(id), self.effect(id).device_bits());
        let own = device.map(|d| effect.on_caps(0, d.features(), &d.limits()) & mask);
        let mut sets = std::collections::BTreeMap::<Bits, Vec<Bits>>::new();
        for bits in combos.into_iter().filter(|b| own.is_none_or(|own| b & mask == own)) {
            sets.entry(bits & mask).or_default().push(bits);
        }
        let base = (sets.len() > 1).then(|| registry.scratch());
        let mut found = std::collections::BTreeSet::new();
        for (k, combos) in sets.into_values().enumerate() {
            let mut other = base.as_ref().filter(|_| k > 0).map(Registry::scratch);
            let set = other.as_mut().unwrap_or(registry);
            self.merge_set(set, id, &combos)?;
            found.extend(self.check_tables(id, set, None)?);
        }
        // Every permutation merged: a `[params]` or `[auto]` name no layout set declares is a typo.
        if report.exhaustive && device.is_none() {
            self.check_tables(id, registry, Some(&found))?;
        }
        Ok(report)
    }

    /// The effect's `[params]` and `[auto]` against the merged `registry`
    /// (`crate::material::check_tables`), as an error of the effect file.
    /// With `missing_but`, only the names outside that set, each of which
    /// must resolve; without, every name `registry` declares.
    fn check_tables(
        &self,
        id: EffectId,
        registry: &Registry,
        missing_but: Option<&std::collections::BTreeSet<String>>,
    ) -> Result<std::collections::BTreeSet<String>, EffectError> {
        let e = self.effect(id);
        let all = missing_but.is_some();
        crate::material::check_tables(&e.family, &e.params, &e.auto, registry, all, missing_but).map_err(
            |error| EffectError {
                file: e.file.clone(),
                location: None,
                kind: Box::new(EffectErrorKind::Tables(error)),
            },
        )
    }

    /// Merges the permutations `combos` into `registry`, on threads when they are many.
    fn merge_set(
        &mut self,
        registry: &mut Registry,
        id: EffectId,
        combos: &[Bits],
    ) -> Result<(), EffectError> {
        // No threads on the web (and the errors there are not `Send`).
        #[cfg(not(target_arch = "wasm32"))]
        if combos.len() >= crate::effect::build::parallel::PARALLEL_FROM {
            if let Some(workers) = self.workers() {
                return self.merge_parallel(registry, id, combos, workers);
            }
        }
        for &bits in combos {
            let parts = self.effect(id).stage_files.len() as u32 + 1;
            let drop = combos.len() > KEEP_COMPOSED;
            let kept = drop.then(|| self.permutations.composed_parts(id.index, bits, parts));
            // What each pass's pipelines would use; for most effects the permutation itself.
            for reflection in self.pass_reflections(FlagSet { effect: id, bits })? {
                let effect = self.effect(id);
                // Layouts only: the module is released once merged.
                registry.add(reflection.layout_only()).map_err(|e| EffectError {
                    file: effect.source_file.clone(),
                    location: None,
                    kind: Box::new(self.conflict(id, bits, e)),
                })?;
            }
            // Few combinations (this serial path): keep them, so that warming
            // or the first draws compose nothing again. Many: keep only what
            // was kept before, so that a large check does not hold every module.
            if let Some(kept) = kept {
                self.permutations.drop_composed_but(id.index, bits, parts, &kept);
            }
        }
        Ok(())
    }

    /// `combos` without those that compose to a module an earlier one
    /// composes to: the same preprocessed text of the source and each stage
    /// file, the same values of the flags their imports test, and the same
    /// passes. Cost: none where no def is tested inside another's `#if`
    /// block; else naga_oil's preprocessor over each text, per combination.
    fn distinct(&self, id: EffectId, combos: Vec<Bits>) -> Vec<Bits> {
        let effect = self.effect(id);
        if combos.len() < 2 || !effect.sources().any(crate::effect::compose::Compose::has_nested_tests) {
            return combos;
        }
        let names = |set: std::collections::BTreeSet<String>| {
            let mut bits: Bits = 0;
            for (i, f) in effect.flags.iter().enumerate() {
                if set.contains(f) {
                    bits |= 1 << i;
                }
            }
            bits
        };
        let imported = effect.sources().map(|s| names(self.compose.imported_tested(s))).fold(0, |m, b| m | b);
        let required = effect.passes.iter().fold(imported, |m, p| m | p.deciding());
        let defs =
            (0..effect.sources().count() as u32).map(|part| effect.part_defs(part)).collect::<Vec<_>>();
        let mut seen = std::collections::HashSet::new();
        combos
            .into_iter()
            .filter(|&bits| {
                let texts = (effect.sources().zip(&defs).enumerate()).map(|(part, (s, defs))| {
                    let on = effect.flags_on(effect.part_bits(part as u32, bits));
                    self.compose.preprocessed(s, defs, &on)
                });
                // A text the preprocessor refuses is composed, so that the error is reported.
                match texts.collect::<Option<Vec<_>>>() {
                    Some(texts) => seen.insert((texts, bits & required)),
                    None => true,
                }
            })
            .collect()
    }
}
