//! The naga_oil composer, shared by the library's stages: `source/` adds
//! the modules effects import and asks which flags a source tests (its
//! imports' included); `build/` composes one flag combination of a source
//! with them (`#ifdef`, `#define`, `#import`). One composer per library
//! (and per check worker), since naga_oil keeps the modules in it.

use crate::effect::source::sites::{Sites, locate};
use std::collections::{BTreeSet, HashMap};

use naga_oil::compose::{
    ComposableModuleDescriptor, Composer, ComposerError, ComposerErrorInner, NagaModuleDescriptor,
    ShaderDefValue, ShaderLanguage, ShaderType,
};

use crate::effect::source::defs;
use crate::error::{EffectError, EffectErrorKind};
use freqbuf::error::Location;

/// naga_oil's span encoding: the low bits are the offset, the high bits the module.
const SPAN_OFFSET_MASK: usize = (1 << 21) - 1;

/// A naga_oil composer with freqbuf's settings.
pub(crate) struct Compose {
    composer: Composer,
    /// Every module added, in order: what a fork adds again.
    modules: Vec<(String, String)>,
    /// Import paths that several files of a module folder declare, with the
    /// files: neither is added, and an import that a permutation reaches is
    /// an error naming them (one inside an inactive `#ifdef` is not).
    ambiguous: HashMap<String, Vec<String>>,
}

/// naga_oil's own preprocessor, for the text a permutation composes from:
/// one for the process, as naga_oil keeps its own, since building one
/// compiles its regexes (2.5 ms a library, and a library per core in a check).
static PREPROCESSOR: std::sync::LazyLock<naga_oil::compose::preprocess::Preprocessor> =
    std::sync::LazyLock::new(Default::default);

impl std::fmt::Debug for Compose {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Compose").field("modules", &self.composer.module_sets.len()).finish()
    }
}

impl Compose {
    pub(crate) fn new() -> Self {
        // Device capabilities are checked when a permutation is registered.
        // Set as a field: `with_capabilities` builds a second default
        // composer, and each compiles naga_oil's regexes (2.5 ms).
        let mut composer = Composer::default();
        composer.capabilities = naga::valid::Capabilities::all();
        Self { composer, modules: Vec::new(), ambiguous: HashMap::new() }
    }

    /// The source's own text with these defs, its `#if`s resolved and its
    /// `#{NAME}`s substituted, as naga_oil preprocesses it: two permutations
    /// with one text, and one value for each def their imports test
    /// ([`Compose::imported_tested`]), compose to the same module. `None`
    /// where the preprocessor refuses the source (composing it says why).
    pub(crate) fn preprocessed(
        &self,
        source: &str,
        fixed: &[(String, ShaderDefValue)],
        on: &[&str],
    ) -> Option<String> {
        let defs: HashMap<String, ShaderDefValue> = fixed
            .iter()
            .cloned()
            .chain(on.iter().map(|d| ((*d).to_owned(), ShaderDefValue::Bool(true))))
            .collect();
        let defs = defs::for_source(source, defs);
        PREPROCESSOR.preprocess(&defs::rewrite(source), &defs).ok().map(|out| out.preprocessed_source)
    }

    /// Whether `source` tests or substitutes a def inside another's `#if`
    /// block: only then can two flag combinations give one text (a flag
    /// tested at the top level changes the text whenever it changes).
    pub(crate) fn has_nested_tests(source: &str) -> bool {
        let mut depth = 0u32;
        for line in source.lines() {
            let line = line.trim_start();
            let directive = line.strip_prefix('#').map(str::trim_start);
            match directive {
                Some(d) if d.starts_with("if") => {
                    if depth > 0 {
                        return true;
                    }
                    depth += 1;
                }
                Some(d) if d.starts_with("else") && depth > 1 => return true,
                Some(d) if d.starts_with("endif") => depth = depth.saturating_sub(1),
                _ if depth > 0 && substitutions(line).next().is_some() => return true,
                _ => {}
            }
        }
        false
    }

    /// The identifiers the modules `source` imports (directly or not) test.
    pub(crate) fn imported_tested(&self, source: &str) -> BTreeSet<String> {
        let (mut seen, mut visited) = (BTreeSet::new(), BTreeSet::new());
        self.imports_into(source, &mut seen, &mut visited);
        seen
    }

    /// Modules added so far.
    #[cfg_attr(
        target_arch = "wasm32",
        allow(dead_code, reason = "the check composes on one thread on the web")
    )]
    pub(crate) fn module_count(&self) -> usize {
        self.modules.len()
    }

    /// A composer with the same modules, for another thread (naga_oil's
    /// `Composer` is not `Clone`). Cost: adding every module again, which
    /// parses their directives, not their WGSL.
    #[cfg_attr(
        target_arch = "wasm32",
        allow(dead_code, reason = "the check composes on one thread on the web")
    )]
    pub(crate) fn fork(&self) -> Result<Self, EffectError> {
        let mut fork = Self::new();
        fork.ambiguous = self.ambiguous.clone();
        for (file, source) in &self.modules {
            fork.add_module(file, source)?;
        }
        Ok(fork)
    }

    /// Refuses `import` for now: several `files` of a searched folder declare
    /// it, and a permutation that reaches it is an error naming them.
    pub(crate) fn refuse_ambiguous(&mut self, import: String, files: Vec<String>) {
        self.ambiguous.insert(import, files);
    }

    /// Accepts `import` again: one of its files was chosen and added.
    pub(crate) fn accept(&mut self, import: &str) {
        self.ambiguous.remove(import);
    }

    /// Adds a module that sources `#import` (it names itself with `#define_import_path`).
    pub(crate) fn add_module(&mut self, file: &str, source: &str) -> Result<(), EffectError> {
        let composer = &mut self.composer;
        let text = defs::rewrite(source);
        let added = deep(file, "", source.len(), || {
            composer
                .add_composable_module(ComposableModuleDescriptor {
                    source: &text,
                    file_path: file,
                    language: ShaderLanguage::Wgsl,
                    ..Default::default()
                })
                .map(drop)
                .map_err(Box::new)
        })?;
        added.map_err(|e| self.error(*e, ""))?;
        self.modules.push((file.to_owned(), source.to_owned()));
        Ok(())
    }

    /// Composes `source` with the valued defs `fixed` and the flags `on` switched on.
    pub(crate) fn compose(
        &mut self,
        file: &str,
        source: &str,
        fixed: &[(String, ShaderDefValue)],
        on: &[&str],
        flags: &str,
    ) -> Result<naga::Module, EffectError> {
        let shader_defs: HashMap<String, ShaderDefValue> = fixed
            .iter()
            .cloned()
            .chain(on.iter().map(|d| ((*d).to_owned(), ShaderDefValue::Bool(true))))
            .collect();
        let shader_defs = defs::for_source(source, shader_defs);
        let text = defs::rewrite(source);
        let composer = &mut self.composer;
        // The imported modules were parsed when added; the source's own size bounds the depth.
        let composed = deep(file, flags, source.len(), || {
            composer
                .make_naga_module(NagaModuleDescriptor {
                    source: &text,
                    file_path: file,
                    shader_type: ShaderType::Wgsl,
                    shader_defs,
                    additional_imports: &[],
                })
                .map_err(Box::new)
        })?;
        let mut module = composed.map_err(|e| self.error(*e, flags))?;
        undecorate(&mut module);
        Ok(module)
    }

    /// The sites of `module`'s bound globals; `file` and `text` are what it
    /// was composed from. A span's bits above naga_oil's offset say which
    /// module declares the global: 0 the composed file, `k` the `k`-th added.
    pub(crate) fn sites(&self, module: &naga::Module, file: &str, text: &str) -> Sites {
        let mut sites = Sites::new();
        for (handle, var) in module.global_variables.iter() {
            let (Some(name), Some(_)) = (&var.name, &var.binding) else { continue };
            let Some(range) = module.global_variables.get_span(handle).to_range() else { continue };
            let (path, source) = match range.start >> SPAN_OFFSET_MASK.count_ones() {
                0 => (file, text),
                k => {
                    match self.composer.module_index.get(&k).and_then(|n| self.composer.module_sets.get(n)) {
                        Some(m) => (m.file_path.as_str(), m.sanitized_source.as_str()),
                        None => continue,
                    }
                }
            };
            sites.insert(name.clone(), (path.to_owned(), declaration(source, name)));
        }
        sites
    }

    /// The identifiers `source` (and the modules it imports) test in
    /// `#ifdef`, `#ifndef`, `#if` and `#else if…` lines.
    pub(crate) fn tested(&self, source: &str) -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut visited = BTreeSet::new();
        self.tested_into(source, &mut seen, &mut visited);
        seen
    }

    fn tested_into(&self, source: &str, seen: &mut BTreeSet<String>, visited: &mut BTreeSet<String>) {
        for line in source.lines() {
            let line = line.trim_start();
            // `#{NAME}` and `#NAME` inside a line substitute the def's value: a test too.
            seen.extend(substitutions(line).map(str::to_owned));
            let Some(rest) = line.strip_prefix('#') else { continue };
            let rest = rest.trim_start();
            let rest = rest.strip_prefix("else").map_or(rest, str::trim_start);
            if !rest.starts_with("if") {
                continue;
            }
            let words = rest.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty());
            seen.extend(words.skip(1).map(|w| defs::plain(w).to_owned()));
        }
        self.imports_into(source, seen, visited);
    }

    fn imports_into(&self, source: &str, seen: &mut BTreeSet<String>, visited: &mut BTreeSet<String>) {
        let (_, imports, _) = naga_oil::compose::get_preprocessor_data(source);
        for import in imports {
            if visited.insert(import.import.clone()) {
                if let Some(module) = self.composer.module_sets.get(&import.import) {
                    let text = module.sanitized_source.clone();
                    self.tested_into(&text, seen, visited);
                }
            }
        }
    }

    /// A naga_oil error with the file and `line:column` it points at.
    fn error(&self, e: ComposerError, flags: &str) -> EffectError {
        let file = e.source.path(&self.composer).clone();
        let text = e.source.source(&self.composer);
        let offset = e.source.offset();
        let at = match &e.inner {
            ComposerErrorInner::WgslParseError(p) => p.labels().next().and_then(|(s, _)| s.to_range()),
            ComposerErrorInner::ShaderValidationError(v) | ComposerErrorInner::HeaderValidationError(v) => {
                v.spans().next().and_then(|(s, _)| s.to_range())
            }
            ComposerErrorInner::ImportNotFound(_, pos)
            | ComposerErrorInner::ImportParseError(_, pos)
            | ComposerErrorInner::NotEnoughEndIfs(pos)
            | ComposerErrorInner::TooManyEndIfs(pos)
            | ComposerErrorInner::ElseWithoutCondition(pos)
            | ComposerErrorInner::UnknownShaderDefOperator { pos, .. }
            | ComposerErrorInner::UnknownShaderDef { pos, .. } => Some(*pos..*pos),
            _ => None,
        };
        let location = at.map(|r| {
            let at = ((r.start & SPAN_OFFSET_MASK).saturating_sub(offset)).min(text.len());
            undecorated_location(&text, at)
        });
        let message = match &e.inner {
            ComposerErrorInner::WgslParseError(p) => p.message().to_owned(),
            ComposerErrorInner::ShaderValidationError(v) => crate::error::chain(v.as_inner()),
            inner => inner.to_string(),
        };
        if let ComposerErrorInner::ImportNotFound(import, _) = &e.inner {
            if let Some(files) = self.ambiguous.get(import) {
                let kind =
                    EffectErrorKind::DuplicateImportPath { import: import.clone(), files: files.clone() };
                return EffectError { file, location, kind: Box::new(kind) };
            }
        }
        let by = match &e.inner {
            ComposerErrorInner::WgslParseError(_) => "naga's WGSL parser",
            ComposerErrorInner::ShaderValidationError(_) | ComposerErrorInner::HeaderValidationError(_) => {
                "naga's validator"
            }
            _ => "naga_oil",
        };
        let kind = EffectErrorKind::Compose { flags: flags.to_owned(), by, message, composer: Box::new(e) };
        EffectError { file, location, kind: Box::new(kind) }
    }
}

/// Runs naga_oil on a stack sized for the input (the core's `on_deep_stack`):
/// its WGSL parser recurses over nesting as naga's does. A panic inside it
/// becomes an error naming the file.
fn deep<T: Send>(
    file: &str,
    flags: &str,
    len: usize,
    f: impl FnOnce() -> T + Send,
) -> Result<T, EffectError> {
    freqbuf::__effects::on_deep_stack(len, f).map_err(|panic| {
        let what = panic
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        EffectError {
            file: file.to_owned(),
            location: None,
            kind: Box::new(EffectErrorKind::Panic { flags: flags.to_owned(), message: what }),
        }
    })
}

/// The defs a line substitutes: `#{NAME}` anywhere, `#NAME` after the start
/// (at the start, `#` begins a directive such as `#ifdef`).
fn substitutions(line: &str) -> impl Iterator<Item = &str> {
    line.match_indices('#').filter(|&(i, _)| i > 0).filter_map(move |(i, _)| {
        let rest = &line[i + 1..];
        let rest = rest.strip_prefix('{').unwrap_or(rest);
        let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(rest.len());
        (end > 0).then(|| &rest[..end])
    })
}

/// The `line:column` of `at` in the file: naga_oil's text has imported names
/// decorated, so the decorations before `at` on its line come off the column.
fn undecorated_location(text: &str, at: usize) -> Location {
    let mut location = locate(text, at);
    // A span may end inside a multi-byte character: step back to its start.
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let line_start = text[..at].rfind('\n').map_or(0, |n| n + 1);
    let before = &text[line_start..at];
    let mut extra = 0;
    let mut rest = before;
    while let Some(i) = rest.find(DECORATION) {
        let tail = &rest[i + DECORATION.len()..];
        // The module path in base32 (A–Z, 2–7) and the closing `X`, which is
        // in that alphabet too: the decoration ends the identifier, so all of it.
        let len = DECORATION.len()
            + tail
                .find(|c: char| !(c.is_ascii_uppercase() || ('2'..='7').contains(&c)))
                .unwrap_or(tail.len());
        extra += len.min(rest.len() - i);
        rest = &rest[(i + len).min(rest.len())..];
    }
    location.column = location.column.saturating_sub(extra as u32);
    location
}

/// naga_oil's suffix on items an imported module defines: `view` from
/// `bevy_sprite::mesh2d_view_bindings` becomes `viewX_naga_oil_mod_X…X`.
const DECORATION: &str = "X_naga_oil_mod_X";

/// Gives imported globals and types back the names their module gave them,
/// so that `view`, `dt_lut_texture` and `View.exposure` resolve as written.
/// A type whose plain name another type of the same shape already has keeps
/// its decorated name (naga's type arena holds each type once).
fn undecorate(module: &mut naga::Module) {
    let plain = |name: &str| name.split_once(DECORATION).map(|(item, _)| item.to_owned());
    for (_, var) in module.global_variables.iter_mut() {
        if let Some(name) = var.name.as_deref().and_then(plain) {
            var.name = Some(name);
        }
    }
    let renamed = (module.types.iter())
        .filter_map(|(h, ty)| {
            Some((h, naga::Type { name: Some(plain(ty.name.as_deref()?)?), inner: ty.inner.clone() }))
        })
        .collect::<Vec<_>>();
    for (handle, ty) in renamed {
        if module.types.get(&ty).is_none() {
            module.types.replace(handle, ty);
        }
    }
}

/// The `line:column` of the one `var` declaring `name` in `text`, or `None`
/// where there is none or several (one per `#ifdef` branch).
fn declaration(text: &str, name: &str) -> Option<Location> {
    let mut found = None;
    for (at, _) in text.match_indices("var") {
        let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
        if at > 0 && ident(text.as_bytes()[at - 1]) {
            continue;
        }
        let mut rest = &text[at + 3..];
        if rest.starts_with('<') {
            let Some(end) = rest.find('>') else { continue };
            rest = &rest[end + 1..];
        } else if !rest.starts_with(char::is_whitespace) {
            continue;
        }
        let Some(after) = rest.trim_start().strip_prefix(name) else { continue };
        if !after.trim_start().starts_with(':') {
            continue;
        }
        if found.is_some() {
            return None;
        }
        found = Some(locate(text, at));
    }
    found
}
