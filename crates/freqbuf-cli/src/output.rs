//! Printing merged slots and shaders: the table and the JSON every command shares.

use freqbuf::Registry;
use serde_json::{Value, json};

use crate::users::Universe;

pub(crate) fn to_json(registry: &Registry) -> Value {
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
                // A slab: found through a member of another array slot's element
                // (`from_group`, `from_binding`), or of the immediate data (`"from": "immediate"`).
                "slab": s.slab().map(|l| {
                    let mut v = json!({"member": l.member, "offset": l.offset, "mask": l.mask});
                    match l.from {
                        freqbuf::SlabFrom::Array(p) => {
                            v["from_group"] = p.group.into();
                            v["from_binding"] = p.binding.into();
                        }
                        _ => v["from"] = "immediate".into(),
                    }
                    v
                }),
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
                "features": features(s),
            })
        })
        .collect::<Vec<_>>();
    json!({ "slots": slots, "shaders": shaders })
}

/// The wgpu features a shader's bindings need, by name (`EXPERIMENTAL_RAY_QUERY`).
pub(crate) fn features(s: &freqbuf::reflect::ShaderReflection) -> Vec<&'static str> {
    s.required_features().iter_names().map(|(name, _)| name).collect()
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

/// The merged slots, then each shader's resources. `verbose`: every user by
/// name; else each effect's permutations in a phrase (`users.rs`), and
/// shaders with the same resources under one heading.
pub(crate) fn print_table(registry: &Registry, verbose: bool) {
    let universe = Universe::new(registry.shaders().map(|(_, s)| s.name()));
    let users = |names: &[&str]| if verbose { names.join(", ") } else { universe.summarise(names) };
    let mut slots = registry.slots().map(|(_, s)| s).collect::<Vec<_>>();
    slots.sort_by_key(|s| (s.binding(), s.family().map(str::to_owned)));
    for s in slots {
        let names = s.users().iter().map(|&u| registry[u].name()).collect::<Vec<_>>();
        let family = s.family().map_or_else(String::new, |f| format!(" of family {f}"));
        println!(
            "slot {} {}{family} ({} bytes) used by {}",
            s.binding(),
            s.frequency(),
            s.size(),
            users(&names)
        );
        if let Some(l) = s.slab() {
            let mask = if l.mask == !0 { String::new() } else { format!(" & {:#x}", l.mask) };
            println!("  slab: each instance's element, found through `{}`{mask} of {}", l.member, l.from);
        }
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
    // Shaders with the same resource lines, in order of first appearance.
    let mut listed: Vec<(Vec<String>, Vec<&str>)> = Vec::new();
    for (_, sh) in registry.shaders() {
        let lines = sh
            .resources()
            .iter()
            .map(|r| {
                let count = match r.count {
                    0 => "[]".to_owned(),
                    1 => String::new(),
                    n => format!("[{n}]"),
                };
                let count =
                    if sh.is_table(r.binding) { format!("{count}  (table a slab indexes)") } else { count };
                let used = if r.is_used() { "" } else { "  (unused)" };
                format!("  {:<22} {:<16} {}{}{}", r.binding.to_string(), r.kind.as_str(), r.name, count, used)
            })
            .chain(
                Some(features(sh))
                    .filter(|f| !f.is_empty())
                    .map(|f| format!("  needs Features::{}", f.join(" | "))),
            )
            .collect::<Vec<_>>();
        match listed.iter_mut().find(|(l, _)| !verbose && *l == lines) {
            Some((_, names)) => names.push(sh.name()),
            None => listed.push((lines, vec![sh.name()])),
        }
    }
    for (lines, names) in listed {
        println!("shader {}", users(&names));
        for line in lines {
            println!("{line}");
        }
    }
}
