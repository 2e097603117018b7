//! One permutation of a WESL part, compiled: the `wesl` crate's passes driven
//! here (so that every error of an imported module keeps its module), with
//! the flags as features and the valued `[defs]` as the `constants` package,
//! the output parsed by naga.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use naga_oil::compose::ShaderDefValue;
use wesl::error::{Diagnostic, ResolveError};
use wesl::mangler::EscapeMangler;
use wesl::pass::{self, CompilerDriver, Module, UsedItems};
use wesl::syntax::{ModulePath, TranslationUnit, Visibility};
use wesl::{Feature, Features, Mangler, Resolver};

use super::discover::{Part, Sources, canonical, is_constants};
use super::map::{self, Names, OutputMap};
use crate::error::{EffectError, EffectErrorKind};

/// A compiled permutation: the module, where its bound globals are
/// declared, and the map back from its WGSL to the `.wesl` files.
pub(crate) struct Compiled {
    pub(crate) module: naga::Module,
    pub(crate) sites: crate::effect::source::sites::Sites,
    pub(crate) map: OutputMap,
}

/// Compiles `sources`' `part` (0 the source, `i` the `i`-th stage file) with the
/// flags `on` and the `[defs]` values `defs`. `flags` names the
/// permutation in errors; with `effect`, in the sites of its resources
/// (`lit[GLOSSY] materials/common.wesl`), so that a conflict between two
/// permutations of a linked pass names both.
pub(crate) fn permutation(
    sources: &Arc<Sources>,
    part: u32,
    defs: &[(String, ShaderDefValue)],
    on: &[&str],
    (effect, flags): (&str, &str),
) -> Result<Compiled, EffectError> {
    let part = part as usize;
    let features = features(defs, on);
    let constants = constants(defs);
    let len = sources.parts[part].modules.values().map(|&i| sources.files[i].text.len()).sum();
    let owned = sources.clone();
    let run = || compile(owned, part, &features, &constants, flags);
    let (module, map) = freqbuf::__effects::on_deep_stack(len, run).map_err(|panic| {
        let message = panic
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        let kind = EffectErrorKind::WeslCompiler {
            flags: flags.to_owned(),
            message: format!("panicked: {message}"),
        };
        EffectError { file: sources.main_file(part), location: None, kind: Box::new(kind) }
    })??;
    let (module, mut sites) = map.unmangle(module);
    for (file, _) in sites.values_mut() {
        *file = format!("{effect}[{flags}] {file}");
    }
    Ok(Compiled { module, sites, map })
}

impl Sources {
    pub(super) fn main_file(&self, part: usize) -> String {
        let p = &self.parts[part];
        p.modules.get(&p.main).map_or_else(String::new, |&i| self.files[i].name.clone())
    }
}

fn compile(
    sources: Arc<Sources>,
    part: usize,
    features: &Features,
    constants: &str,
    flags: &str,
) -> Result<(naga::Module, OutputMap), EffectError> {
    let p = &sources.parts[part];
    let resolver = PartResolver { sources: &sources, part: p, constants };
    let mangler = Recorder::default();
    let mut driver = Driver {
        main: &p.main,
        features,
        resolver: &resolver,
        mangler: &mangler,
        origins: RefCell::default(),
    };
    let unit = pass::compile(&mut driver);
    let origins = driver.origins.into_inner();
    let names = mangler.names.into_inner();
    let unit = unit.map_err(|e| map::compiler_error(&sources, part, e, flags, &names))?;
    let map = OutputMap::render(sources.clone(), part, &unit.syntax, &origins, names);
    let module = naga::front::wgsl::parse_str(map.text()).map_err(|e| map.naga_parse_error(&e, flags))?;
    Ok((module, map))
}

/// Features for `@if`: the flags on, boolean defs as they are, and every
/// valued def switched on (as Bevy does); any other name is off.
fn features(defs: &[(String, ShaderDefValue)], on: &[&str]) -> Features {
    let mut features = Features { default: Feature::Disable, flags: HashMap::new() };
    for (name, value) in defs {
        let on = !matches!(value, ShaderDefValue::Bool(false));
        features.flags.insert(name.clone(), on.into());
    }
    for name in on {
        features.flags.insert((*name).to_owned(), Feature::Enable);
    }
    features
}

/// The `constants` package: one untyped `const` per valued def, as Bevy
/// generates it (`2` then fits a `@group` and an array count alike).
fn constants(defs: &[(String, ShaderDefValue)]) -> String {
    let value = |v: &ShaderDefValue| match v {
        ShaderDefValue::Bool(_) => None,
        ShaderDefValue::Int(i) => Some(i.to_string()),
        ShaderDefValue::UInt(u) => Some(u.to_string()),
    };
    defs.iter().filter_map(|(n, v)| Some(format!("const {n} = {};\n", value(v)?))).collect()
}

/// Serves a part's files, found when the effect was loaded, and `constants`.
struct PartResolver<'a> {
    sources: &'a Sources,
    part: &'a Part,
    constants: &'a str,
}

impl PartResolver<'_> {
    /// A fresh copy of the syntax tree of `path`'s file, as parsed when the
    /// effect was loaded; `None` for `constants`, a file that did not parse,
    /// or one not found (the compiler's own load reports those).
    fn parsed(&self, path: &ModulePath) -> Option<TranslationUnit> {
        let path = canonical(path);
        let bytes = self.sources.files[*self.part.modules.get(&path)?].unit.as_deref()?;
        postcard::from_bytes(bytes).ok()
    }
}

impl Resolver for PartResolver<'_> {
    fn resolve_source<'b>(&'b self, path: &ModulePath) -> Result<Cow<'b, str>, ResolveError> {
        let path = canonical(path);
        if is_constants(&path) {
            return Ok(Cow::Borrowed(self.constants));
        }
        match self.part.modules.get(&path) {
            Some(&i) => Ok(Cow::Borrowed(&self.sources.files[i].text)),
            None => {
                let why =
                    self.part.missing.get(&path).map_or("freqbuf found no file for it", |m| m.why.as_str());
                Err(ResolveError::ModuleNotFound(path, why.to_owned()))
            }
        }
    }

    fn display_name(&self, path: &ModulePath) -> Option<String> {
        self.part.modules.get(&canonical(path)).map(|&i| self.sources.files[i].name.clone())
    }

    fn canonical_path(&self, path: &ModulePath) -> ModulePath {
        canonical(path)
    }
}

/// WESL's default mangler, recording what it renamed.
#[derive(Default)]
struct Recorder {
    names: RefCell<Names>,
}

impl Mangler for Recorder {
    fn mangle(&self, path: &ModulePath, item: &str) -> String {
        let mangled = EscapeMangler.mangle(path, item);
        self.names.borrow_mut().insert(mangled.clone(), (path.clone(), item.to_owned()));
        mangled
    }

    fn unmangle(&self, mangled: &str) -> Option<(ModulePath, String)> {
        self.names.borrow().get(mangled).cloned()
    }
}

/// The compiler's own pipeline (its `Compiler`'s passes, with Bevy's
/// options: imports, `@if`, stripping to the entry points, mangling), but
/// each module's errors carry the module, and the linked declarations say
/// which module each came from.
struct Driver<'a> {
    main: &'a ModulePath,
    features: &'a Features,
    resolver: &'a PartResolver<'a>,
    mangler: &'a Recorder,
    /// The module of each linked declaration, in order.
    origins: RefCell<Vec<ModulePath>>,
}

impl CompilerDriver for Driver<'_> {
    fn main_path(&self) -> &ModulePath {
        self.main
    }

    fn canonical_path(&self, path: &ModulePath) -> ModulePath {
        canonical(path)
    }

    // Visibility (`public`, `private`) is not enforced: Bevy's shaders
    // import across packages without marking anything `public`.
    fn module_usage_analysis(
        &self,
        module: &Module,
        used: &mut UsedItems,
        next: &mut UsedItems,
    ) -> Result<(), wesl::Error> {
        Ok(pass::module_usage_analysis(module, used, next, true)?)
    }

    fn usage_analysis(
        &self,
        module: &Module,
        decl: &str,
        min: Visibility,
        used: &mut UsedItems,
        next: &mut UsedItems,
    ) -> Result<(), wesl::Error> {
        Ok(pass::usage_analysis(module, decl, min, used, next, true)?)
    }

    fn load_module(&mut self, path: &ModulePath) -> Result<TranslationUnit, wesl::Error> {
        let mut unit = match self.resolver.parsed(path) {
            Some(unit) => unit,
            None => pass::load_module(path, self.resolver)?,
        };
        let name = self.resolver.display_name(path);
        let at =
            |e: Diagnostic<wesl::Error>| wesl::Error::from(e.with_module_path(path.clone(), name.clone()));
        pass::condcomp(&mut unit, self.features).map_err(|e| at(Diagnostic::from(e)))?;
        pass::retarget_idents(&mut unit);
        pass::validate_wesl(&unit).map_err(at)?;
        Ok(unit)
    }

    fn link(&self, modules: &mut Vec<Module>, used: &UsedItems) -> Result<TranslationUnit, wesl::Error> {
        pass::retarget_modules(modules, used, self.resolver);
        for module in modules.iter_mut().filter(|m| m.path != *self.main) {
            pass::mangle(&mut module.syntax, &module.path, self.mangler);
        }
        // Linked one module at a time, which is what linking them together
        // does, so that each declaration's module is known.
        let mut out = TranslationUnit::default();
        let mut origins = Vec::new();
        for module in modules.iter() {
            let part = pass::link(std::slice::from_ref(module), Some(used));
            origins.extend(std::iter::repeat_n(module.path.clone(), part.global_declarations.len()));
            out.global_declarations.extend(part.global_declarations);
            out.global_directives.extend(part.global_directives);
        }
        out.global_directives.dedup();
        pass::validate_wgsl(&out)?;
        *self.origins.borrow_mut() = origins;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::super::discover::{Finder, Library};
    use super::*;

    const MAIN: &str = "import package::lib::{tint, Params};
@group(0) @binding(0) var<uniform> p: Params;
@fragment fn fs() -> @location(0) vec4<f32> {
    @if(RED) { return tint(p.color) * 2.0; }
    return tint(p.color);
}
";
    const LIB: &str = "struct Params { color: vec4<f32> }
fn tint(c: vec4<f32>) -> vec4<f32> { return c * 0.5; }
";

    fn texts(sources: &Arc<Sources>, flags: &[&[&str]]) -> Vec<String> {
        let compile = |on: &[&str]| permutation(sources, 0, &[], on, ("e", &on.join(","))).unwrap();
        flags.iter().map(|on| compile(on).map.text().to_owned()).collect()
    }

    /// Each permutation compiles a fresh copy of the trees parsed at load:
    /// the compiler renames the imported module's names in place, so a
    /// copy that shared them would be mangled again by the next
    /// permutation. Alternating flags must give what parsing every time gives.
    #[test]
    fn permutations_compile_from_the_parsed_trees_as_from_the_text() {
        let dir = std::env::temp_dir().join(format!("freqbuf-wesl-trees-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("lib.wesl"), LIB).unwrap();
        let main = dir.join("main.wesl").display().to_string();
        let load = || {
            let mut library = Library::default();
            Finder::new(BTreeMap::new(), &mut library, None).run(vec![(main.clone(), MAIN.into(), true)]).0
        };
        let (sources, mut parsing) = (load(), load());
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(sources.files.len(), 2);
        assert!(sources.files.iter().all(|f| f.unit.is_some()), "both files parsed at load");
        parsing.files.iter_mut().for_each(|f| f.unit = None);
        let order: [&[&str]; 4] = [&[], &["RED"], &[], &["RED"]];
        let (kept, parsed) = (texts(&Arc::new(sources), &order), texts(&Arc::new(parsing), &order));
        assert_eq!(kept, parsed);
        assert_eq!((&kept[0], &kept[1]), (&kept[2], &kept[3]));
        assert_ne!(kept[0], kept[1], "RED changes the module");
        assert!(kept[0].contains("tint"), "{}", kept[0]);
    }
}
