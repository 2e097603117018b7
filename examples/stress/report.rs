//! What the stress example prints: a table per moving share, a summary across
//! shares (CPU ms per frame and ns per moved object), the JSON form of both,
//! and the SVG chart.

use crate::{Run, Share};

/// ns of CPU per moved object, or `None` when nothing moves.
fn ns_per_moved(share: &Share, run: &Run) -> Option<f64> {
    let moved = share.params.objects as f64 * share.params.moving;
    (moved >= 1.0).then(|| run.cpu_ms * 1e6 / moved)
}

/// The form freqbuf's flushes took: every frame packed, every frame one
/// whole span, or a mix (`span 3/20`).
fn form(run: &Run, frames: u32) -> String {
    match run.span_frames {
        0 => "packed".into(),
        d if d == frames => "span".into(),
        d => format!("span {d}/{frames}"),
    }
}

pub(crate) fn print_table(share: &Share, real: bool) {
    let (p, runs, minimal) = (&share.params, &share.runs, share.minimal);
    println!(
        "scene: {} objects{}, {} shaders, {} materials, {} views, {:.0}% moving, {:.0}% materials changing, {} frames",
        p.objects,
        if p.object_storage { " (object storage)" } else { "" },
        p.shaders,
        p.materials,
        p.views,
        p.moving * 100.0,
        p.material_changes * 100.0,
        p.frames
    );
    println!();
    println!(
        "{:<18} {:>12} {:>13} {:>11} {:>12} {:>8} {:>9} {:>9} {:>8} {:>10}",
        "method",
        "bytes/frame",
        "uploads/frame",
        "binds/frame",
        "cpu ms/frame",
        "ns/draw",
        "ns/moved",
        "bytes ×fb",
        "cpu ×fb",
        "flush"
    );
    let fb = &runs[0];
    for r in runs {
        let is_freqbuf = r.name.starts_with("freqbuf");
        println!(
            "{:<18} {:>12} {:>13} {:>11} {:>12.2} {:>8.0} {:>9} {:>9} {:>8.2} {:>10}",
            r.name,
            r.cost.bytes,
            r.cost.upload_calls,
            r.cost.bind_calls,
            r.cpu_ms,
            r.cpu_ms * 1e6 / p.objects as f64,
            ns_per_moved(share, r).map_or_else(|| "-".into(), |n| format!("{n:.0}")),
            if fb.cost.bytes > 0 {
                format!("{:.2}", r.cost.bytes as f64 / fb.cost.bytes as f64)
            } else {
                "-".into()
            },
            r.cpu_ms / fb.cpu_ms,
            if is_freqbuf { form(r, p.frames) } else { "-".into() }
        );
    }
    println!();
    println!("minimal bytes/frame (changed values): {minimal:.0}");
    println!("freqbuf bytes / minimal:              {:.3}", fb.cost.bytes as f64 / minimal.max(1.0));
    if let Some(floor) = runs.iter().find(|r| r.name == "encode_floor") {
        println!("freqbuf cpu / encode floor:           {:.3}", fb.cpu_ms / floor.cpu_ms);
        println!(
            "freqbuf overhead per draw:            {:.0} ns",
            (fb.cpu_ms - floor.cpu_ms) * 1e6 / p.objects as f64
        );
    }
    if fb.repeats.len() > 1 {
        print_repeats(runs);
    }
    if real {
        let same = runs.iter().all(|r| r.hash == fb.hash);
        println!(
            "final images:                         {} ({:016x})",
            if same { "identical" } else { "DIFFERENT" },
            fb.hash
        );
    } else {
        println!("final images:                         not compared (noop backend renders nothing)");
    }
    println!();
}

/// `a`'s CPU ms over `b`'s, repeat by repeat: the median and the range.
fn ratio(a: &Run, b: &Run) -> (f64, f64, f64) {
    let r = a.repeats.iter().zip(&b.repeats).map(|(x, y)| x / y).collect::<Vec<_>>();
    let (lo, hi) = r.iter().fold((f64::MAX, f64::MIN), |(lo, hi), &x| (lo.min(x), hi.max(x)));
    (crate::median(&r), lo, hi)
}

/// Each method's CPU ms over the repeats, and its ratio to freqbuf.
fn print_repeats(runs: &[Run]) {
    let n = runs[0].repeats.len();
    println!("over {n} repeats (each the median frame of one run): median (min-max)");
    println!("{:<18} {:>22} {:>22}", "method", "cpu ms/frame", "cpu ×fb");
    for r in runs {
        let (lo, hi) = r.repeats.iter().fold((f64::MAX, f64::MIN), |(lo, hi), &x| (lo.min(x), hi.max(x)));
        let (m, rlo, rhi) = ratio(r, &runs[0]);
        println!(
            "{:<18} {:>22} {:>22}",
            r.name,
            format!("{:.2} ({lo:.2}-{hi:.2})", r.cpu_ms),
            format!("{m:.3} ({rlo:.3}-{rhi:.3})")
        );
    }
    println!();
}

/// CPU ms per frame and ns per moved object of every method at every share.
pub(crate) fn print_summary(shares: &[Share]) {
    println!("CPU per frame by moving share: ms per frame (ns per moved object)");
    print!("{:<18}", "method");
    for s in shares {
        print!(" {:>20}", format!("{:.0}% moving", s.params.moving * 100.0));
    }
    println!();
    for (i, r) in shares[0].runs.iter().enumerate() {
        print!("{:<18}", r.name);
        for s in shares {
            let run = &s.runs[i];
            let per = ns_per_moved(s, run).map_or_else(|| "-".into(), |n| format!("{n:.0}"));
            print!(" {:>20}", format!("{:.2} ({per})", run.cpu_ms));
        }
        println!();
    }
}

pub(crate) fn print_json(shares: &[Share]) {
    let shares = shares
        .iter()
        .map(|share| {
            let p = &share.params;
            let methods = share
                .runs
                .iter()
                .map(|r| {
                    (
                        r.name.to_owned(),
                        serde_json::json!({
                            "bytes_per_frame": r.cost.bytes,
                            "upload_calls_per_frame": r.cost.upload_calls,
                            "bind_calls_per_frame": r.cost.bind_calls,
                            "cpu_ms_per_frame": r.cpu_ms,
                            "cpu_ms_per_repeat": r.repeats,
                            "cpu_ns_per_draw": r.cpu_ms * 1e6 / p.objects as f64,
                            "cpu_ns_per_moved_object": ns_per_moved(share, r),
                            "span_flush_frames": r.span_frames,
                            "image_hash": format!("{:016x}", r.hash),
                        }),
                    )
                })
                .collect::<serde_json::Map<_, _>>();
            serde_json::json!({
                "scene": {"objects": p.objects, "object_storage": p.object_storage, "shaders": p.shaders,
                          "materials": p.materials, "views": p.views, "moving": p.moving,
                          "material_changes": p.material_changes, "frames": p.frames, "seed": p.seed},
                "methods": methods,
                "ratios": ratios(&share.runs),
                "minimal_bytes_per_frame": share.minimal,
            })
        })
        .collect::<Vec<_>>();
    println!(
        "{}",
        serde_json::to_string_pretty(&serde_json::json!({ "shares": shares })).expect("plain values")
    );
}

/// Every method's CPU ms over every other's, `"a/b": {median, min, max}`
/// over the repeats (one value each without `--repeat`).
fn ratios(runs: &[Run]) -> serde_json::Map<String, serde_json::Value> {
    let mut out = serde_json::Map::new();
    for a in runs {
        for b in runs.iter().filter(|b| b.name != a.name) {
            let (median, min, max) = ratio(a, b);
            out.insert(
                format!("{}/{}", a.name, b.name),
                serde_json::json!({"median": median, "min": min, "max": max}),
            );
        }
    }
    out
}

/// An SVG line chart, one line per method: CPU ms per frame by frame for one
/// share (so that transients show: first frames, growth, re-recorded
/// bundles), or CPU ms per frame by moving share for several.
pub(crate) fn chart(path: &std::path::Path, shares: &[Share]) -> Result<(), Box<dyn std::error::Error>> {
    use plotters::prelude::*;
    let root = SVGBackend::new(path, (960, 540)).into_drawing_area();
    root.fill(&WHITE)?;
    let p = &shares[0].params;
    let by_share = shares.len() > 1;
    // (x, ms) per method.
    let lines = (0..shares[0].runs.len())
        .map(|i| {
            let name = shares[0].runs[i].name;
            let points: Vec<(f64, f64)> = if by_share {
                shares.iter().map(|s| (s.params.moving * 100.0, s.runs[i].cpu_ms)).collect()
            } else {
                shares[0].runs[i].frames.iter().enumerate().map(|(f, &t)| (f as f64 + 1.0, t)).collect()
            };
            (name, points, shares.last().map_or(0.0, |s| s.runs[i].cpu_ms))
        })
        .collect::<Vec<_>>();
    let top = lines.iter().flat_map(|l| l.1.iter().map(|p| p.1)).fold(0.0f64, f64::max) * 1.1;
    let storage = if p.object_storage { " (object storage)" } else { "" };
    let (title, x_desc, x_end) = if by_share {
        (format!("CPU ms per frame: {} objects{storage}, by moving share", p.objects), "% moving", 100.0)
    } else {
        let title =
            format!("CPU ms per frame: {} objects{storage}, {:.0}% moving", p.objects, p.moving * 100.0);
        (title, "frame", f64::from(p.frames.max(2)))
    };
    let mut c = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(48)
        .build_cartesian_2d(0.0..x_end, 0.0..top.max(0.1))?;
    c.configure_mesh().x_desc(x_desc).y_desc("CPU ms").draw()?;
    for (i, (name, points, last)) in lines.into_iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let label = if by_share { name.to_owned() } else { format!("{name} (median {last:.2})") };
        c.draw_series(LineSeries::new(points, color.stroke_width(2)))?
            .label(label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2)));
    }
    c.configure_series_labels().background_style(WHITE.mix(0.8)).border_style(BLACK).draw()?;
    root.present()?;
    Ok(())
}
