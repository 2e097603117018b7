//! Parameter names: normalization of reflected names and parsing of paths.
//!
//! Reflection APIs in the D3D tradition report an array `Texture2D GMRTs[4]` under
//! the name `GMRTs[4]`. freqbuf stores every name bare (`GMRTs`), and reads a
//! user's path such as `lights[3].color` or `GMRTs[2]` as a list of segments,
//! each a name with an optional element index.

use smallvec::SmallVec;

use crate::errors::ParamErrorKind;

/// Strips every trailing `[N]` suffix: `GMRTs[4]` → `GMRTs`, `m[2][3]` → `m`.
///
/// Names without such a suffix come back unchanged.
#[inline]
pub(crate) fn normalize(name: &str) -> &str {
    let mut rest = name;
    while let Some(stripped) = rest.strip_suffix(']') {
        match stripped.rfind('[') {
            Some(open)
                if open > 0
                    && stripped[open + 1..].bytes().all(|b| b.is_ascii_digit())
                    && open + 1 < stripped.len() =>
            {
                rest = &stripped[..open];
            }
            _ => break,
        }
    }
    rest
}

/// One step of a parameter path: a member name and an optional element index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Segment<'a> {
    /// The member name, without brackets.
    pub name: &'a str,
    /// The index in brackets, if any.
    pub index: Option<u32>,
}

impl std::fmt::Display for Segment<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.index {
            Some(i) => write!(f, "{}[{i}]", self.name),
            None => f.write_str(self.name),
        }
    }
}

/// A parsed parameter path such as `lights[3].color`.
pub(crate) type Path<'a> = SmallVec<[Segment<'a>; 2]>;

/// Parses `a`, `a[3]`, `a[3].b`, `a.b.c` into segments.
///
/// Whitespace is not allowed; every name is non-empty. A name may carry several
/// indices (`coeffs[8][2]`, for nested arrays): each index after the first is a
/// segment of its own with an empty name.
pub(crate) fn parse_path(path: &str) -> Result<Path<'_>, ParamErrorKind> {
    let malformed = || ParamErrorKind::Malformed;
    let mut out = Path::new();
    if path.is_empty() {
        return Err(malformed());
    }
    for part in path.split('.') {
        let open = part.find('[').unwrap_or(part.len());
        let (name, mut brackets) = part.split_at(open);
        let valid_ident = name.chars().all(|c| c.is_alphanumeric() || c == '_') && !name.is_empty();
        if !valid_ident {
            return Err(malformed());
        }
        if brackets.is_empty() {
            out.push(Segment { name, index: None });
        }
        // `coeffs[8][2]`: the second index is a segment with an empty name.
        let mut first = true;
        while !brackets.is_empty() {
            let close = brackets.find(']').ok_or_else(malformed)?;
            let inner = brackets.strip_prefix('[').ok_or_else(malformed)?;
            let inner = &inner[..close - 1];
            if inner.is_empty() || !inner.bytes().all(|b| b.is_ascii_digit()) {
                return Err(malformed());
            }
            let index = inner.parse::<u32>().map_err(|_| malformed())?;
            out.push(Segment { name: if first { name } else { "" }, index: Some(index) });
            first = false;
            brackets = &brackets[close + 1..];
        }
    }
    Ok(out)
}

/// Up to three known names closest to `name`, best first.
pub fn closest<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut scored = known
        .into_iter()
        .map(|k| (strsim::jaro_winkler(name, k), k))
        .filter(|(score, _)| *score > 0.7)
        .collect::<Vec<_>>();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    scored.dedup_by(|a, b| a.1 == b.1);
    scored.into_iter().take(3).map(|(_, k)| k.to_owned()).collect()
}

/// Whether a member only pads the block so that a shader can declare a subset.
///
/// Names starting with `_pad` (`_pad0`, `_padding`) are padding: they create no
/// member and overlap nothing.
#[inline]
pub(crate) fn is_padding(name: &str) -> bool {
    name.starts_with("_pad")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_strips_array_suffixes() {
        assert_eq!(normalize("GMRTs[4]"), "GMRTs");
        assert_eq!(normalize("m[2][3]"), "m");
        assert_eq!(normalize("plain"), "plain");
        assert_eq!(normalize("odd[x]"), "odd[x]");
        assert_eq!(normalize("[4]"), "[4]");
        assert_eq!(normalize("a[]"), "a[]");
    }

    #[test]
    fn parse_paths() {
        let p = parse_path("lights[3].color").unwrap();
        assert_eq!(p.len(), 2);
        assert_eq!(p[0], Segment { name: "lights", index: Some(3) });
        assert_eq!(p[1], Segment { name: "color", index: None });
        assert!(parse_path("").is_err());
        assert!(parse_path("a..b").is_err());
        assert!(parse_path("a[").is_err());
        assert!(parse_path("a[-1]").is_err());
        assert!(parse_path("a[1]x").is_err());
        assert!(parse_path("a b").is_err());
        assert!(parse_path("a[99999999999]").is_err());
        let p = parse_path("coeffs[8][2].x").unwrap();
        assert_eq!(
            &p[..],
            [
                Segment { name: "coeffs", index: Some(8) },
                Segment { name: "", index: Some(2) },
                Segment { name: "x", index: None }
            ]
        );
        assert!(parse_path("a[1][").is_err());
        assert!(parse_path("a[1]]").is_err());
        assert!(parse_path("[1]").is_err());
    }
}
