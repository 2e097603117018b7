//! From the WGSL a permutation compiles to back to the `.wesl` files: the
//! names users wrote (`view`, `View`) instead of the mangled ones, and each
//! error at its file:line:column.
//!
//! Every declaration of the linked output keeps its span in its own module,
//! so a position in the output is found in the declaration that holds it,
//! then (its unmangled name searched there) at the token in the file.

use std::collections::{HashMap, HashSet};
use std::fmt::Write;
use std::ops::Range;
use std::sync::Arc;

use wesl::error::{Detail, ImportError, ResolveError, UsageError};
use wesl::syntax::{GlobalDeclaration, ModulePath, TranslationUnit};

use super::discover::Sources;
use crate::effect::source::sites::{Sites, locate};
use crate::error::{EffectError, EffectErrorKind};
use freqbuf::error::Location;
use freqbuf::error::{ReflectError, ReflectErrorKind};

/// Mangled name → (module, item): what the compiler renamed, and what an
/// error in the output is mapped back through.
pub(super) type Names = HashMap<String, (ModulePath, String)>;

/// The WGSL of one compiled permutation and where each declaration came from.
pub(crate) struct OutputMap {
    sources: Arc<Sources>,
    part: usize,
    text: String,
    decls: Vec<Decl>,
    names: Names,
}

struct Decl {
    /// Its bytes in the output.
    out: Range<usize>,
    /// Its file and bytes there.
    file: Option<usize>,
    span: Range<usize>,
}

impl OutputMap {
    /// Writes `unit` as WGSL, recording each declaration's place.
    pub(super) fn render(
        sources: Arc<Sources>,
        part: usize,
        unit: &TranslationUnit,
        origins: &[ModulePath],
        names: Names,
    ) -> Self {
        let mut text = String::new();
        for directive in &unit.global_directives {
            let _ = writeln!(text, "{directive}");
        }
        text.push('\n');
        let mut decls = Vec::new();
        for (i, decl) in unit.global_declarations.iter().enumerate() {
            if matches!(decl.node(), GlobalDeclaration::Void) {
                continue;
            }
            let start = text.len();
            let _ = write!(text, "{decl}");
            let file = origins.get(i).and_then(|m| sources.file_of(part, m));
            decls.push(Decl { out: start..text.len(), file, span: decl.span().range() });
            text.push_str("\n\n");
        }
        Self { sources, part, text, decls, names }
    }

    /// The WGSL naga reads.
    pub(super) fn text(&self) -> &str {
        &self.text
    }

    /// The file and `line:column` of byte `at` of the output: of `name`
    /// near there, when given, else of the name at `at`.
    fn locate(&self, at: usize, name: Option<&str>) -> (String, Option<Location>) {
        let main = self.sources.main_file(self.part);
        let Some(decl) = self.decls.iter().find(|d| d.out.contains(&at)) else { return (main, None) };
        let Some(file) = decl.file.map(|i| &self.sources.files[i]) else { return (main, None) };
        let text = &file.text;
        let span = decl.span.start.min(text.len())..decl.span.end.min(text.len());
        // The name at `at`, unmangled, searched in the declaration near where
        // it sits in the output (their layouts differ).
        let word = name
            .or_else(|| ident_at(&self.text, at))
            .map(|w| self.names.get(w).map_or(w, |(_, item)| item.as_str()));
        let wanted = span.start + (at - decl.out.start) * span.len() / decl.out.len().max(1);
        let found = word.and_then(|w| {
            let body = text.get(span.clone())?;
            let alone = |i: usize| {
                (i == 0 || !is_ident(text.as_bytes()[i - 1]))
                    && text.as_bytes().get(i + w.len()).is_none_or(|&c| !is_ident(c))
            };
            let hits = body.match_indices(w).map(|(i, _)| span.start + i).filter(|&i| alone(i));
            hits.min_by_key(|&i| i.abs_diff(wanted))
        });
        (file.name.clone(), Some(locate(text, found.unwrap_or(span.start))))
    }

    /// `text` with every mangled name written as `module::item`.
    fn unmangle_text(&self, text: &str) -> String {
        let mut names = self.names.iter().collect::<Vec<_>>();
        names.sort_by_key(|(m, _)| std::cmp::Reverse(m.len()));
        names
            .into_iter()
            .fold(text.to_owned(), |t, (m, (path, item))| t.replace(m.as_str(), &format!("{path}::{item}")))
    }

    fn naga_error(&self, at: Option<usize>, flags: &str, message: String) -> EffectError {
        let main = || (self.sources.main_file(self.part), None);
        let (file, location) = at.map_or_else(main, |at| self.locate(at, None));
        let kind =
            EffectErrorKind::WeslNaga { flags: flags.to_owned(), message: self.unmangle_text(&message) };
        EffectError { file, location, kind: Box::new(kind) }
    }

    /// naga's WGSL front end refused the output.
    pub(super) fn naga_parse_error(&self, e: &naga::front::wgsl::ParseError, flags: &str) -> EffectError {
        let at = e.labels().next().and_then(|(s, _)| s.to_range()).map(|r| r.start);
        let labels = e.labels().map(|(_, l)| l.to_string()).filter(|l| !l.is_empty()).collect::<Vec<_>>();
        let message = match labels.is_empty() {
            true => e.message().to_owned(),
            false => format!("{} ({})", e.message(), labels.join("; ")),
        };
        self.naga_error(at, flags, message)
    }

    /// Reflecting the module failed: naga's validator at its `.wesl` position,
    /// anything else as the registration error it is (freqbuf refused it).
    pub(crate) fn reflect_error(&self, e: ReflectError, flags: &str) -> EffectError {
        if let ReflectErrorKind::Validation(v) = &e.kind {
            let at = v.spans().next().and_then(|(s, _)| s.to_range()).map(|r| r.start);
            return self.naga_error(at, flags, crate::error::chain(v.as_inner()));
        }
        let kind = EffectErrorKind::Register { flags: flags.to_owned(), source: Box::new(e.into()) };
        EffectError { file: self.sources.main_file(self.part), location: None, kind: Box::new(kind) }
    }

    /// Gives bound globals and types the names their modules gave them
    /// (unless two would share one), and says where each bound global is declared.
    pub(super) fn unmangle(&self, mut module: naga::Module) -> (naga::Module, Sites) {
        let plain =
            |name: &Option<String>| name.as_deref().and_then(|n| self.names.get(n)).map(|(_, i)| i.clone());
        let mut taken: HashSet<String> = (module.global_variables.iter())
            .filter(|(_, v)| plain(&v.name).is_none())
            .filter_map(|(_, v)| v.name.clone())
            .collect();
        let mut sites = Sites::new();
        let spans = (module.global_variables.iter())
            .map(|(h, _)| module.global_variables.get_span(h).to_range().map(|r| r.start))
            .collect::<Vec<_>>();
        for ((_, var), at) in module.global_variables.iter_mut().zip(spans) {
            if let Some(p) = plain(&var.name).filter(|p| !taken.contains(p)) {
                taken.insert(p.clone());
                var.name = Some(p);
            }
            if let (Some(name), Some(_), Some(at)) = (&var.name, &var.binding, at) {
                sites.insert(name.clone(), self.locate(at, Some(name)));
            }
        }
        let mut taken: HashSet<String> = module
            .types
            .iter()
            .filter(|(_, t)| plain(&t.name).is_none())
            .filter_map(|(_, t)| t.name.clone())
            .collect();
        let renamed = (module.types.iter())
            .filter_map(|(h, t)| {
                Some((h, naga::Type { name: Some(plain(&t.name)?), inner: t.inner.clone() }))
            })
            .collect::<Vec<_>>();
        for (handle, ty) in renamed {
            let name = ty.name.clone().unwrap_or_default();
            if !taken.contains(&name) && module.types.get(&ty).is_none() {
                taken.insert(name);
                module.types.replace(handle, ty);
            }
        }
        (module, sites)
    }
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80
}

/// The identifier at or just after byte `at` of `text`, on its line.
fn ident_at(text: &str, at: usize) -> Option<&str> {
    let b = text.as_bytes();
    let mut start = at.min(b.len());
    while start < b.len() && !is_ident(b[start]) && b[start] != b'\n' {
        start += 1;
    }
    while start > 0 && is_ident(b[start - 1]) {
        start -= 1;
    }
    let end = start + b[start..].iter().take_while(|&&c| is_ident(c)).count();
    (end > start && !b[start].is_ascii_digit()).then(|| &text[start..end])
}

/// The WESL compiler refused a permutation: its message, at the module and
/// position the compiler gives (or, for a module with no file, where it is named).
pub(super) fn compiler_error(
    sources: &Sources,
    part: usize,
    e: wesl::Error,
    flags: &str,
    names: &Names,
) -> EffectError {
    let mut details: Vec<&Detail> = Vec::new();
    let mut inner = &e;
    loop {
        inner = match inner {
            wesl::Error::Error(d)
            | wesl::Error::ResolveError(ResolveError::Error(d))
            | wesl::Error::ImportError(ImportError::ResolveError(ResolveError::Error(d))) => {
                details.push(&d.detail);
                &d.error
            }
            _ => break,
        };
    }
    let mut file = sources.main_file(part);
    let mut location = None;
    let missing = match inner {
        wesl::Error::ResolveError(ResolveError::ModuleNotFound(path, _))
        | wesl::Error::ImportError(ImportError::ResolveError(ResolveError::ModuleNotFound(path, _))) => {
            sources.parts[part].missing.get(&super::discover::canonical(path))
        }
        _ => None,
    };
    let absent = match inner {
        wesl::Error::UsageError(UsageError::NotFound(path, item)) => Some((path, item)),
        _ => None,
    };
    if let Some(m) = missing {
        (file, location) = (sources.files[m.file].name.clone(), m.at);
    } else if let Some((i, at)) = absent.and_then(|(path, item)| sources.find(part, path, item)) {
        (file, location) = (sources.files[i].name.clone(), Some(locate(&sources.files[i].text, at)));
    } else if let Some(i) = details.iter().rev().find_map(|d| sources.file_of(part, d.module_path.as_ref()?))
    {
        file = sources.files[i].name.clone();
        let span = details.iter().rev().find_map(|d| d.span);
        location = span.map(|s| locate(&sources.files[i].text, s.start));
    }
    let mut message = match inner {
        // Its position is in the location; its own text repeats it in bytes.
        wesl::Error::ParseError(e) => e.error.to_string(),
        e => e.to_string(),
    };
    if let Some(decl) = details.iter().find_map(|d| d.declaration.as_deref()) {
        let decl = names.get(decl).map_or(decl, |(_, item)| item.as_str());
        let _ = write!(message, " (in `{decl}`)");
    }
    let kind = EffectErrorKind::WeslCompiler { flags: flags.to_owned(), message };
    EffectError { file, location, kind: Box::new(kind) }
}
