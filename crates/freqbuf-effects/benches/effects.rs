//! The whole-effect check at Bevy scale: a sprite-shaped effect that imports
//! the six-module library of `tests/effects/bevy/` and tests 12 flags, so
//! `Effects::check` composes, reflects and merges all 4,096 permutations;
//! the check of one permutation (`--flags` in the CLI); and the same effect
//! with 17 flags, which the check samples (none, each, each pair, all: 155).
//!
//! `cargo bench -p freqbuf-effects --bench effects`

use criterion::{Criterion, criterion_group, criterion_main};
use freqbuf::{Frequency, Registry, SlotPlan};
use freqbuf_effects::Effects;

/// The sprite effect's source with `extra` more flags, each tested.
fn source(extra: usize) -> String {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/effects/bevy");
    let sprite = std::fs::read_to_string(format!("{dir}/sprite.wgsl")).expect("the test library");
    let extra = (0..extra)
        .map(|i| format!("#ifdef EXTRA_{i}\n    color = vec4(color.rgb * {}.0, color.a);\n#endif\n", i + 2))
        .collect::<String>();
    sprite.replace("    return color;\n}", &format!("{extra}    return color;\n}}"))
}

fn toml(extra: usize) -> String {
    let extra = (0..extra).map(|i| format!(", \"EXTRA_{i}\"")).collect::<String>();
    format!(
        "source = \"sprite.wgsl\"\nflags = [\"TONEMAP_IN_SHADER\", \"TONEMAP_METHOD_ACES_FITTED\", \"DEBAND_DITHER\"{extra}]\n\
         [defs]\nMATERIAL_BIND_GROUP = 1\nTONEMAPPING_LUT_TEXTURE_BINDING_INDEX = 3\nTONEMAPPING_LUT_SAMPLER_BINDING_INDEX = 4\nMAX_LUT_SAMPLES = 2\n\
         [[technique]]\nname = \"sprite\"\n  [[technique.pass]]\n  name = \"main\"\n  vertex = \"vertex\"\n  fragment = \"fragment\"\n"
    )
}

fn effects(c: &mut Criterion) {
    let plan = SlotPlan::empty().with_group(0, Frequency::View).with_group(1, Frequency::Material);
    let registry = Registry::new(plan);
    let lib = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/effects/bevy/lib");
    let mut fx = Effects::new();
    fx.add_module_dir(lib).expect("the test library");
    let id = fx.add("sprite12.effect.toml", &toml(9), &source(9)).expect("the 12-flag sprite");
    let id17 = fx.add("sprite17.effect.toml", &toml(14), &source(14)).expect("the 17-flag sprite");
    let mut group = c.benchmark_group("effect_check");
    group.sample_size(10);
    group.bench_function("sprite_12_flags_all_4096", |b| {
        b.iter(|| {
            let report = fx.check(&registry, id, None).expect("consistent");
            assert_eq!(report.permutations, 4096);
        })
    });
    let one = fx.flags(id, &["TONEMAP_IN_SHADER", "EXTRA_3"]).expect("declared");
    group.bench_function("sprite_12_flags_one", |b| {
        b.iter(|| fx.check(&registry, id, Some(one)).expect("consistent").permutations)
    });
    group.bench_function("sprite_17_flags_sampled", |b| {
        b.iter(|| {
            let report = fx.check(&registry, id17, None).expect("consistent");
            assert_eq!((report.permutations, report.exhaustive), (155, false));
        })
    });
    group.finish();
}

criterion_group!(benches, effects);
criterion_main!(benches);
