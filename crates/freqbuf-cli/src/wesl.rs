//! WESL on the command line: packages (`--package NAME=DIR`, `--packages
//! GLOB`) and defs (`--def NAME=VALUE`) for `.wesl` files and effects, and
//! `.wesl` shaders for `reflect` and `declare`, one permutation each.

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use freqbuf::reflect::ShaderReflection;
use freqbuf_effects::{DefValue, Effects};

#[derive(clap::Args)]
pub(crate) struct WeslArgs {
    /// A WESL package: `import NAME::a::b` reads `DIR/a/b.wesl` (repeatable),
    /// as `--package bevy_render=crates/bevy_render/src`.
    #[arg(long = "package", global = true, value_name = "NAME=DIR", value_parser = package)]
    packages: Vec<(String, PathBuf)>,
    /// Every folder matching a glob as a WESL package named by its crate
    /// folder (the part the last wildcard matched): `--packages 'crates/*/src'`
    /// covers Bevy's layout (repeatable).
    #[arg(long = "packages", global = true, value_name = "GLOB")]
    globs: Vec<String>,
    /// A def for WESL sources, comma-separated (repeatable): `true`/`false`
    /// switch `@if(NAME)` (and `#ifdef NAME`); an integer is `constants::NAME`
    /// (and `#{NAME}`) and switches `NAME` on, as Bevy's valued defs do.
    /// Every effect gets it over its `[defs]`: the defs a renderer sets in
    /// code, as `--def MATERIAL_BIND_GROUP=2`.
    #[arg(long = "def", global = true, value_name = "NAME=VALUE", value_delimiter = ',', value_parser = def)]
    defs: Vec<(String, DefValue)>,
}

fn package(text: &str) -> Result<(String, PathBuf), String> {
    let (name, dir) = text.split_once('=').ok_or("expected NAME=DIR")?;
    Ok((name.trim().to_owned(), PathBuf::from(dir.trim())))
}

fn def(text: &str) -> Result<(String, DefValue), String> {
    let (name, value) = text.split_once('=').ok_or("expected NAME=VALUE")?;
    let value = match value.trim() {
        "true" => DefValue::Bool(true),
        "false" => DefValue::Bool(false),
        v => match v.parse::<i64>() {
            Ok(i) if i >= 0 => {
                DefValue::UInt(u32::try_from(i).map_err(|_| format!("{i} does not fit a u32"))?)
            }
            Ok(i) => DefValue::Int(i32::try_from(i).map_err(|_| format!("{i} does not fit an i32"))?),
            Err(_) => return Err(format!("`{v}` is not true, false or an integer")),
        },
    };
    Ok((name.trim().to_owned(), value))
}

impl WeslArgs {
    /// An effect library with the packages given.
    pub(crate) fn library(&self) -> anyhow::Result<Effects> {
        let mut fx = Effects::new();
        for (name, dir) in &self.packages {
            fx.add_package(name, dir)?;
        }
        for glob in &self.globs {
            fx.add_packages(glob)?;
        }
        Ok(fx)
    }

    /// `--def`'s values, for [`Effects::set_defs`].
    pub(crate) fn defs(&self) -> Vec<(&str, DefValue)> {
        self.defs.iter().map(|(n, v)| (n.as_str(), *v)).collect()
    }

    /// Reads `reflect`'s and `declare`'s shader files: `.wesl` through the
    /// WESL compiler with `flags` on, the others by extension.
    pub(crate) fn reader<'a>(&'a self, flags: &'a [String]) -> anyhow::Result<Reader<'a>> {
        let fx =
            if self.packages.is_empty() && self.globs.is_empty() { Effects::new() } else { self.library()? };
        Ok(Reader { fx: RefCell::new(fx), flags, defs: &self.defs })
    }
}

/// Reads one shader file of any language the CLI takes.
pub(crate) struct Reader<'a> {
    fx: RefCell<Effects>,
    flags: &'a [String],
    defs: &'a [(String, DefValue)],
}

impl Reader<'_> {
    pub(crate) fn read(
        &self,
        path: &Path,
        stage: Option<freqbuf::naga::ShaderStage>,
    ) -> anyhow::Result<ShaderReflection> {
        if path.extension().is_none_or(|e| e != "wesl") {
            return Ok(ShaderReflection::from_path(path, stage)?);
        }
        let flags = self.flags.iter().map(String::as_str).collect::<Vec<_>>();
        let defs = self.defs.iter().map(|(n, v)| (n.as_str(), *v)).collect::<Vec<_>>();
        Ok(self.fx.borrow_mut().reflect_wesl(path, &flags, &defs)?)
    }
}
