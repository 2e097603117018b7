//! `freqbuf reflect`: print the slot plan that a set of shaders produces;
//! `freqbuf effect`: an effect's techniques, passes and merged slots, every
//! permutation checked; `freqbuf declare`: WGSL declarations of merged slots
//! (`--rust`: Rust structs for typed blocks).

use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use freqbuf::reflect::ShaderReflection;
use freqbuf::{Registry, SlotPlan};
use serde_json::{Value, json};

mod plan;
mod wesl;
use plan::{PlanEntry, plan_entry, slot_plan};

#[derive(Parser)]
#[command(name = "freqbuf", version, about = "Reflect shaders into shared, frequency-sorted uniform slots")]
struct Cli {
    /// The slot plan, as `GROUP=FREQUENCY` or `GROUP.BINDING=FREQUENCY`
    /// entries (frequencies: frame, view, material, object), comma-separated;
    /// for example Bevy's `0=view,1=object,2=material`. Default: 0 frame,
    /// 1 view, 2 material, 3 object.
    #[arg(long, global = true, value_delimiter = ',', value_parser = plan_entry)]
    plan: Vec<PlanEntry>,
    /// Register each shader file once per pipeline, narrowed to these entry
    /// points (comma-separated; repeat for each pipeline), as
    /// `--pipeline vs_bake --pipeline vs_main,fs_main` for wgpu's shadow
    /// example, whose entry points use different resources at one binding.
    /// Default: each file whole.
    #[arg(long, global = true)]
    pipeline: Vec<String>,
    /// Register every shader file in this family, so that their per-family
    /// blocks (materials, by default) merge into one layout, as one material
    /// type. Default: each file is a family of its own.
    #[arg(long, global = true)]
    family: Option<String>,
    #[command(flatten)]
    wesl: wesl::WeslArgs,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Reflect all FILES together and print their merged slots.
    Reflect {
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// Stage of GLSL files whose extension does not say (.glsl).
        #[arg(long, value_enum)]
        stage: Option<Stage>,
        /// max_uniform_buffer_binding_size to check blocks against; every other
        /// limit is WebGPU's default, as a `Manager` on such a device checks.
        #[arg(long, default_value_t = Registry::DEFAULT_MAX_UNIFORM_BINDING_SIZE)]
        max_uniform_size: u32,
        /// `@if` names to switch on in .wesl files, comma-separated.
        #[arg(long, value_delimiter = ',')]
        flags: Vec<String>,
        /// Shader files: .wgsl, .wesl, .spv, .vert, .frag, .comp.
        #[arg(required = true)]
        files: Vec<std::path::PathBuf>,
    },
    /// Load effect files, check their permutations together and print their
    /// techniques, passes and merged slots.
    Effect {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        /// Flags to switch on, comma-separated (checks that one permutation).
        #[arg(long, value_delimiter = ',')]
        flags: Vec<String>,
        /// Check every combination of the flags the source tests.
        #[arg(long, conflicts_with = "flags")]
        all_permutations: bool,
        /// A directory of WGSL modules, found by their `#define_import_path`
        /// when an effect imports them (repeatable).
        #[arg(long)]
        module_dir: Vec<std::path::PathBuf>,
        /// Effect files (TOML), checked together as one renderer loads them:
        /// their shared slots (and families they share) must agree.
        #[arg(required = true)]
        files: Vec<std::path::PathBuf>,
    },
    /// Print the WGSL declarations of the merged slots of FILES.
    Declare {
        /// Stage of GLSL files whose extension does not say (.glsl).
        #[arg(long, value_enum)]
        stage: Option<Stage>,
        /// Print Rust structs with `#[derive(freqbuf::ShaderStruct)]` instead,
        /// for `Manager::param_struct` (include them from `build.rs`).
        #[arg(long)]
        rust: bool,
        /// `@if` names to switch on in .wesl files, comma-separated.
        #[arg(long, value_delimiter = ',')]
        flags: Vec<String>,
        /// Shader files: .wgsl, .wesl, .spv, .vert, .frag, .comp.
        #[arg(required = true)]
        files: Vec<std::path::PathBuf>,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum Stage {
    Vertex,
    Fragment,
    Compute,
}

fn main() -> ExitCode {
    // naga panics on some corrupt inputs; freqbuf reports those as errors of their
    // file, so the default hook's message and backtrace would only be noise.
    std::panic::set_hook(Box::new(|_| {}));
    let cli = Cli::parse();
    let plan = match slot_plan(&cli.plan) {
        Ok(plan) => plan,
        Err(message) => {
            use clap::CommandFactory;
            Cli::command().error(clap::error::ErrorKind::ArgumentConflict, message).exit()
        }
    };
    let pipelines = cli.pipeline.iter().map(|p| p.split(',').map(str::trim).collect()).collect::<Vec<_>>();
    match cli.command {
        Command::Reflect { json, stage, max_uniform_size, flags, files } => match cli.wesl.reader(&flags) {
            Ok(read) => reflect(
                &plan,
                (&pipelines, cli.family.as_deref(), &read),
                json,
                stage,
                max_uniform_size,
                &files,
            ),
            Err(e) => fail(e),
        },
        Command::Effect { json, flags, all_permutations, module_dir, files } => {
            effect(&plan, &cli.wesl, json, &flags, all_permutations, &module_dir, &files)
        }
        Command::Declare { stage, rust, flags, files } => match cli.wesl.reader(&flags) {
            Ok(read) => declare(&plan, (&pipelines, cli.family.as_deref(), &read), stage, rust, &files),
            Err(e) => fail(e),
        },
    }
}

fn fail(e: anyhow::Error) -> ExitCode {
    eprintln!("error: {e:#}");
    ExitCode::FAILURE
}

/// Reflects and merges `files`, printing every error; `None` when one failed.
/// How files register: once per pipeline (entry point sets; whole when
/// none), in one family when given, read by the reader (WESL with its flags).
type Registration<'a> = (&'a [Vec<&'a str>], Option<&'a str>, &'a wesl::Reader<'a>);

fn merged(
    plan: &SlotPlan,
    (pipelines, family, read): Registration<'_>,
    files: &[std::path::PathBuf],
    stage: Option<Stage>,
    max_uniform_size: u32,
) -> Option<Registry> {
    let stage = stage.map(|s| match s {
        Stage::Vertex => freqbuf::naga::ShaderStage::Vertex,
        Stage::Fragment => freqbuf::naga::ShaderStage::Fragment,
        Stage::Compute => freqbuf::naga::ShaderStage::Compute,
    });
    let mut registry = Registry::with_limit(plan.clone(), max_uniform_size);
    let limits = freqbuf_limits(max_uniform_size);
    let mut errors = Vec::new();
    let mut add = |s: ShaderReflection| {
        Registry::check_device(&s, &limits, wgpu::Features::all()).and_then(|()| registry.add(s))
    };
    for file in files {
        let shader = read.read(file, stage).map(|s| match family {
            Some(f) => s.with_family(f),
            None => s,
        });
        let added = match shader {
            Ok(s) if pipelines.is_empty() => add(s).map(drop).map_err(anyhow::Error::new),
            Ok(s) => pipelines
                .iter()
                .try_for_each(|p| add(s.for_entry_points(p)?).map(drop))
                .map_err(anyhow::Error::new),
            Err(e) => Err(e),
        };
        if let Err(e) = added {
            errors.push(e);
        }
    }
    let ok = errors.is_empty();
    for e in errors {
        eprintln!("error: {e:#}");
    }
    ok.then_some(registry)
}

fn reflect(
    plan: &SlotPlan,
    registration: Registration<'_>,
    json: bool,
    stage: Option<Stage>,
    max_uniform_size: u32,
    files: &[std::path::PathBuf],
) -> ExitCode {
    let Some(registry) = merged(plan, registration, files, stage, max_uniform_size) else {
        return ExitCode::FAILURE;
    };
    for (frequency, name, slots) in registry.ambiguous_names() {
        let spellings = slots
            .iter()
            .flat_map(|&s| registry[s].aliases().iter().map(|a| format!("`{a}.{name}`")))
            .collect::<Vec<_>>();
        eprintln!(
            "warning: `{name}` is declared by {} {frequency} blocks; set it as {}",
            slots.len(),
            spellings.join(", ")
        );
    }
    if json {
        println!("{}", serde_json::to_string_pretty(&to_json(&registry)).expect("JSON of plain values"));
    } else {
        print_table(&registry);
    }
    ExitCode::SUCCESS
}

/// The device the CLI checks against: WebGPU's default limits with the given
/// uniform binding size, binding arrays as long as any device allows, and
/// 128 bytes of immediate data (Vulkan's guaranteed push-constant size).
fn freqbuf_limits(max_uniform_size: u32) -> wgpu::Limits {
    wgpu::Limits {
        max_uniform_buffer_binding_size: max_uniform_size.into(),
        max_binding_array_elements_per_shader_stage: u32::MAX,
        max_binding_array_sampler_elements_per_shader_stage: u32::MAX,
        max_immediate_size: 128,
        ..wgpu::Limits::default()
    }
}

fn effect(
    plan: &SlotPlan,
    wesl: &wesl::WeslArgs,
    json: bool,
    flags: &[String],
    all: bool,
    module_dirs: &[std::path::PathBuf],
    files: &[std::path::PathBuf],
) -> ExitCode {
    if files.len() > 1 && !flags.is_empty() {
        eprintln!("error: --flags picks one permutation of one effect; give one effect file");
        return ExitCode::FAILURE;
    }
    let mut fx = match wesl.library() {
        Ok(fx) => fx,
        Err(e) => return fail(e),
    };
    for dir in module_dirs {
        if let Err(e) = fx.add_module_dir(dir) {
            eprintln!("error: {:#}", anyhow::Error::new(e));
            return ExitCode::FAILURE;
        }
    }
    // One registry for every file: a conflict between two effects shows.
    let mut registry = Registry::new(plan.clone());
    let mut loaded = Vec::new();
    for file in files {
        let result = fx.load(file).map_err(anyhow::Error::new).and_then(|id| {
            let id = wesl.with_defs(&mut fx, id)?;
            let names = flags.iter().map(String::as_str).collect::<Vec<_>>();
            let only = if all { None } else { Some(fx.flags(id, &names)?) };
            Ok(fx.merge(&mut registry, id, only).map(|report| (id, report))?)
        });
        match result {
            Ok(r) => loaded.push(r),
            Err(e) => return fail(e),
        }
    }
    for &(id, _) in &loaded {
        // [params] and [auto] against the permutations checked (every one with
        // --all-permutations), as merged already: nothing is composed again.
        if let Err(e) = freqbuf_effects::validate_tables(&fx, id, &registry, all) {
            eprintln!("error: {}: {:#}", fx.effect(id).name(), anyhow::Error::new(e));
            return ExitCode::FAILURE;
        }
    }
    if json {
        let mut each = loaded.iter().map(|&(id, report)| effect_json(fx.effect(id), report, &registry));
        let v = match files.len() {
            1 => each.next().expect("one file, loaded"),
            _ => Value::Array(each.collect()),
        };
        println!("{}", serde_json::to_string_pretty(&v).expect("JSON of plain values"));
        return ExitCode::SUCCESS;
    }
    for &(id, report) in &loaded {
        print_effect(fx.effect(id), report);
    }
    print_table(&registry);
    ExitCode::SUCCESS
}

/// The passes of `technique`, in order.
fn passes<'e>(effect: &'e freqbuf_effects::Effect, technique: &str) -> Vec<&'e freqbuf_effects::Pass> {
    (effect.passes().iter()).filter(|p| p.name.split_once('.').is_some_and(|(t, _)| t == technique)).collect()
}

fn effect_json(
    effect: &freqbuf_effects::Effect,
    report: freqbuf_effects::CheckReport,
    registry: &Registry,
) -> Value {
    let techniques = effect
        .techniques()
        .map(|t| {
            let passes = passes(effect, t).into_iter().map(|p| {
                json!({
                    "name": p.name.split_once('.').map_or(p.name.as_str(), |(_, n)| n),
                    "vertex": p.vertex, "fragment": p.fragment, "compute": p.compute,
                    "files": {"vertex": p.files[0], "fragment": p.files[1], "compute": p.files[2]},
                    "blend": p.blend.as_str(), "cull": p.cull.as_str(),
                    "depth": p.depth.map(|d| json!({"compare": d.compare.as_str(), "write": d.write})),
                    "color_write": p.color_write,
                })
            });
            json!({"name": t, "passes": passes.collect::<Vec<_>>()})
        })
        .collect::<Vec<_>>();
    json!({
        "effect": effect.name(), "family": effect.family(), "flags": effect.flags(),
        "permutations": report.permutations, "distinct": report.distinct, "exhaustive": report.exhaustive,
        "techniques": techniques, "slots": to_json(registry)["slots"],
    })
}

fn print_effect(effect: &freqbuf_effects::Effect, report: freqbuf_effects::CheckReport) {
    let checked = if report.exhaustive { "every combination" } else { "not every combination" };
    println!("effect {} (flags: {}; family {})", effect.name(), effect.flags().join(", "), effect.family());
    if report.distinct == report.permutations {
        println!("{} permutations composed and merged ({checked})", report.permutations);
    } else {
        // The others preprocess to the same text as one of these.
        println!(
            "{} permutations checked ({checked}), {} distinct composed and merged",
            report.permutations, report.distinct
        );
    }
    for t in effect.techniques() {
        println!("technique {t}");
        for p in passes(effect, t) {
            // `file:entry` where the stage comes from another file than the source.
            let entry = |e: &Option<String>, file: &Option<String>| match (e, file) {
                (Some(e), Some(f)) => format!("{f}:{e}"),
                (Some(e), None) => e.clone(),
                (None, _) => "-".into(),
            };
            let depth = p.depth.map_or("-".into(), |d| format!("{} write={}", d.compare.as_str(), d.write));
            println!(
                "  pass {}: vertex {} fragment {} compute {} blend {} cull {} depth {depth} color_write {}",
                p.name,
                entry(&p.vertex, &p.files[0]),
                entry(&p.fragment, &p.files[1]),
                entry(&p.compute, &p.files[2]),
                p.blend.as_str(),
                p.cull.as_str(),
                p.color_write
            );
        }
    }
}

fn declare(
    plan: &SlotPlan,
    registration: Registration<'_>,
    stage: Option<Stage>,
    rust: bool,
    files: &[std::path::PathBuf],
) -> ExitCode {
    let Some(registry) = merged(plan, registration, files, stage, Registry::DEFAULT_MAX_UNIFORM_BINDING_SIZE)
    else {
        return ExitCode::FAILURE;
    };
    if rust {
        print!("{}", registry.rust_declarations());
        return ExitCode::SUCCESS;
    }
    match registry.declarations() {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {:#}", anyhow::Error::new(e));
            ExitCode::FAILURE
        }
    }
}

fn to_json(registry: &Registry) -> Value {
    let mut slots = registry.slots().map(|(_, s)| s).collect::<Vec<_>>();
    slots.sort_by_key(|s| s.binding());
    let slots = slots
        .iter()
        .map(|s| {
            json!({
                "group": s.binding().group,
                "binding": s.binding().binding,
                "frequency": s.frequency().as_str(),
                "family": s.family(),
                "size": s.size(),
                // An array slot: `size` is the element stride, one element per instance.
                "array": s.is_array(),
                "members": s.members().iter().map(|m| {
                    let m = &m.member;
                    let mut v = json!({"name": m.name, "offset": m.offset, "size": m.size,
                           "type": m.ty.name(), "count": m.count, "stride": m.stride});
                    if let Some(dims) = dims(m) {
                        v["dims"] = dims;
                    }
                    v
                }).collect::<Vec<_>>(),
                "shaders": s.users().iter().map(|&u| registry[u].name()).collect::<Vec<_>>(),
            })
        })
        .collect::<Vec<_>>();
    let shaders = registry
        .shaders()
        .map(|(_, s)| {
            json!({
                "name": s.name(),
                "entry_points": s.entry_points().iter().enumerate().map(|(i, e)| json!({
                    "name": e.name, "stage": format!("{:?}", e.stage).to_lowercase(),
                    "bindings": s.resources().iter().filter(|r| r.users.contains(&i))
                        .map(|r| json!({"group": r.binding.group, "binding": r.binding.binding, "name": r.name}))
                        .collect::<Vec<_>>(),
                })).collect::<Vec<_>>(),
                "resources": s.resources().iter().map(|r| json!({
                    "group": r.binding.group, "binding": r.binding.binding, "name": r.name,
                    "kind": r.kind.as_str(), "count": r.count, "used": r.is_used(), "array": r.array,
                })).collect::<Vec<_>>(),
                "unused": s.unused_blocks().map(|r| r.name.as_str()).collect::<Vec<_>>(),
            })
        })
        .collect::<Vec<_>>();
    json!({ "slots": slots, "shaders": shaders })
}

/// For nested arrays, every dimension outermost first: `[[9, 48], [3, 16]]` as
/// `{"count", "stride"}` objects; `None` for other members.
fn dims(m: &freqbuf::reflect::Member) -> Option<Value> {
    let mut out = vec![json!({"count": m.count, "stride": m.stride})];
    let mut ty = &m.ty;
    while let freqbuf::reflect::MemberType::Array { elem, count, stride, .. } = ty {
        out.push(json!({"count": count, "stride": stride}));
        ty = elem;
    }
    (out.len() > 1).then(|| Value::from(out))
}

fn print_table(registry: &Registry) {
    let mut slots = registry.slots().map(|(_, s)| s).collect::<Vec<_>>();
    slots.sort_by_key(|s| (s.binding(), s.family().map(str::to_owned)));
    for s in slots {
        let users = s.users().iter().map(|&u| registry[u].name()).collect::<Vec<_>>();
        let family = s.family().map_or_else(String::new, |f| format!(" of family {f}"));
        println!(
            "slot {} {}{family} ({} bytes) used by {}",
            s.binding(),
            s.frequency(),
            s.size(),
            users.join(", ")
        );
        println!("  {:>6} {:>6}  {:<16} {:>5} {:>6}  name", "offset", "size", "type", "count", "stride");
        for m in s.members() {
            let m = &m.member;
            println!(
                "  {:>6} {:>6}  {:<16} {:>5} {:>6}  {}",
                m.offset,
                m.size,
                m.ty.name(),
                m.count,
                m.stride,
                m.name
            );
        }
    }
    for (_, sh) in registry.shaders() {
        println!("shader {}", sh.name());
        for r in sh.resources() {
            let count = if r.count > 1 { format!("[{}]", r.count) } else { String::new() };
            let used = if r.is_used() { "" } else { "  (unused)" };
            println!("  {:<22} {:<16} {}{}{}", r.binding.to_string(), r.kind.as_str(), r.name, count, used);
        }
    }
}
