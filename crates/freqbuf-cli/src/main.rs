//! `freqbuf reflect`: print the slot plan that a set of shaders produces;
//! `freqbuf effect`: an effect's techniques, passes and merged slots, every
//! permutation checked; `freqbuf declare`: WGSL declarations of merged slots
//! (`--rust`: Rust structs for typed blocks).

use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use freqbuf::reflect::ShaderReflection;
use freqbuf::{Registry, SlotPlan};
use serde_json::json;

mod conflicts;
mod each;
mod effect;
mod output;
mod plan;
mod users;
mod wesl;
use output::{print_table, to_json};
use plan::{PlanEntry, plan_entry, slot_plan};

#[derive(Parser)]
#[command(name = "freqbuf", version, about = "Reflect shaders into shared, frequency-sorted uniform slots")]
struct Cli {
    /// The slot plan, as `GROUP=FREQUENCY` or `GROUP.BINDING=FREQUENCY`
    /// entries (frequencies: frame, view, material, object), comma-separated;
    /// for example Bevy's `0=view,1=object,2=material`. `GROUP.BINDING=buffer`
    /// makes a read-only storage array there the application's buffer, not an
    /// array slot (data the GPU writes). Default: 0 frame, 1 view, 2 material,
    /// 3 object.
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
    Effect(effect::EffectArgs),
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

impl Stage {
    fn naga(self) -> freqbuf::naga::ShaderStage {
        match self {
            Stage::Vertex => freqbuf::naga::ShaderStage::Vertex,
            Stage::Fragment => freqbuf::naga::ShaderStage::Fragment,
            Stage::Compute => freqbuf::naga::ShaderStage::Compute,
        }
    }
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
        Command::Effect(args) => effect::effect(&plan, &cli.wesl, &args),
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
    let stage = stage.map(Stage::naga);
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
    if let Some(code) = reflect_split(plan, registration, json, stage, max_uniform_size, files) {
        return code;
    }
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
        print_table(&registry, true);
    }
    ExitCode::SUCCESS
}

/// One module whose entry points cannot share a pipeline, given alone and
/// without `--pipeline`: each set of entry points that can is reflected and
/// printed on its own, after a note naming the conflicts. `None` for
/// every other input.
fn reflect_split(
    plan: &SlotPlan,
    (pipelines, family, read): Registration<'_>,
    json: bool,
    stage: Option<Stage>,
    max_uniform_size: u32,
    files: &[std::path::PathBuf],
) -> Option<ExitCode> {
    let [file] = files else { return None };
    let shader = read.read(file, stage.map(Stage::naga)).ok()?;
    let sets = conflicts::compatible_sets(&shader);
    if !pipelines.is_empty() || sets.len() < 2 {
        return None;
    }
    for line in conflicts::entry_point_conflicts(&shader) {
        eprintln!("note: {}: {line}", shader.name());
    }
    let mut each = Vec::new();
    for set in &sets {
        let pipeline = [set.iter().map(String::as_str).collect::<Vec<_>>()];
        let registry = merged(plan, (&pipeline, family, read), files, stage, max_uniform_size)?;
        if json {
            each.push(json!({"entry_points": set, "registry": to_json(&registry)}));
        } else {
            println!("== entry points {} ==", set.join(", "));
            print_table(&registry, true);
        }
    }
    if json {
        let v = json!({"pipelines": each});
        println!("{}", serde_json::to_string_pretty(&v).expect("JSON of plain values"));
    }
    Some(ExitCode::SUCCESS)
}

/// The device the CLI checks against: WebGPU's default limits with the given
/// uniform binding size, binding arrays as long as any device allows, 128
/// bytes of immediate data (Vulkan's guaranteed push-constant size) and the
/// acceleration structures every ray-query device allows (one per stage, as
/// Metal). Every feature: what a shader needs is printed with it.
fn freqbuf_limits(max_uniform_size: u32) -> wgpu::Limits {
    wgpu::Limits {
        max_uniform_buffer_binding_size: max_uniform_size.into(),
        max_binding_array_elements_per_shader_stage: u32::MAX,
        max_binding_array_sampler_elements_per_shader_stage: u32::MAX,
        max_immediate_size: 128,
        ..wgpu::Limits::default()
    }
    .using_minimum_supported_acceleration_structure_values()
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
