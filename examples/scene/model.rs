//! The scene's last frame computed on the CPU, pixel by pixel, from what the
//! application set (camera, object matrices, material values and flags),
//! against which the GPU's image is checked: a ray through each sampled
//! pixel's centre finds the nearest opaque quad and the glass panes in front
//! of it, and each effect's fragment shader is evaluated as WGSL would.

use glam::{Mat4, Vec3, Vec4};

/// What one object draws, as its effect and material flags decide.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Look {
    /// `solid.wgsl`: `color`, or `color * tint` with `TINT`.
    Solid { color: Vec4, tint: Option<Vec4> },
    /// `stripes.wgsl`: `dark` or `light` by pixel column, stripes `width` wide
    /// (twice that with `WIDE`).
    Stripes { dark: Vec4, light: Vec4, width: f32 },
    /// `glass.wgsl`: `color` (or `bright` with `BRIGHT`), added.
    Glass(Vec4),
}

/// How many sampled pixels matched (and of those, how many through glass),
/// and how many were skipped because a quad's edge or a crossing of two
/// quads lies within half a pixel of them.
pub(crate) struct Checked {
    pub(crate) matched: usize,
    pub(crate) blended: usize,
    pub(crate) skipped: usize,
}

/// Checks every `step`-th pixel of `image` (RGBA8, `size` square) against the
/// model; the first pixel whose colour differs by more than the rounding of
/// its blends is an error naming it.
pub(crate) fn check(
    image: &[u8],
    size: u32,
    step: u32,
    view_proj: Mat4,
    objects: &[(Mat4, Look)],
) -> Result<Checked, String> {
    let inverse = view_proj.inverse();
    let locals = objects.iter().map(|(w, look)| (w.inverse(), *look)).collect::<Vec<_>>();
    let mut out = Checked { matched: 0, blended: 0, skipped: 0 };
    for py in (step / 2..size).step_by(step as usize) {
        for px in (step / 2..size).step_by(step as usize) {
            let at =
                |dx: f32, dy: f32| hits(&inverse, &locals, size, px as f32 + 0.5 + dx, py as f32 + 0.5 + dy);
            let centre = at(0.0, 0.0);
            // Half a pixel away the same quads must cover it, in the same order.
            let offsets = [(-0.5, 0.0), (0.5, 0.0), (0.0, -0.5), (0.0, 0.5)];
            if offsets.iter().any(|&(dx, dy)| at(dx, dy) != centre) {
                out.skipped += 1;
                continue;
            }
            let (want, layers) = colour(&locals, &centre, px);
            let i = (py * size + px) as usize * 4;
            let got = &image[i..i + 3];
            // Each blend rounds to 8 bits: its order may move the last bit.
            let tolerance = layers as i32;
            if (0..3).any(|c| (i32::from(got[c]) - i32::from(want[c])).abs() > tolerance) {
                return Err(format!(
                    "pixel ({px}, {py}) is {got:?}, the model gives {:?} (covered by {centre:?})",
                    &want[..3]
                ));
            }
            out.matched += 1;
            out.blended += usize::from(layers > 0);
        }
    }
    Ok(out)
}

/// The nearest opaque quad covering the pixel point (x, y) and the glass
/// panes in front of it, by object index.
#[derive(Debug, PartialEq)]
struct Hits {
    opaque: Option<usize>,
    glass: Vec<usize>,
}

fn hits(inverse: &Mat4, locals: &[(Mat4, Look)], size: u32, x: f32, y: f32) -> Hits {
    let ndc = (x / size as f32 * 2.0 - 1.0, 1.0 - y / size as f32 * 2.0);
    // From the near plane (depth 0) to the far plane (depth 1): ray parameter 0..1.
    let near = inverse.project_point3(Vec3::new(ndc.0, ndc.1, 0.0));
    let far = inverse.project_point3(Vec3::new(ndc.0, ndc.1, 1.0));
    let mut opaque: Option<(f32, usize)> = None;
    let mut glass = Vec::new();
    for (k, (local, look)) in locals.iter().enumerate() {
        let (o, d) = (local.transform_point3(near), local.transform_vector3(far - near));
        if d.z == 0.0 {
            continue;
        }
        let t = -o.z / d.z;
        let (u, v) = (o.x + t * d.x, o.y + t * d.y);
        if !(0.0..=1.0).contains(&t) || u.abs() > 0.5 || v.abs() > 0.5 {
            continue;
        }
        match look {
            Look::Glass(_) => glass.push((t, k)),
            _ if opaque.is_none_or(|(best, _)| t < best) => opaque = Some((t, k)),
            _ => {}
        }
    }
    let limit = opaque.map_or(f32::INFINITY, |(t, _)| t);
    let mut glass = glass.into_iter().filter(|&(t, _)| t <= limit).map(|(_, k)| k).collect::<Vec<_>>();
    glass.sort_unstable();
    Hits { opaque: opaque.map(|(_, k)| k), glass }
}

/// The pixel's RGBA8 colour: the opaque quad's fragment (black where none)
/// with each glass pane added, clamped and stored as 8 bits after each blend
/// as a `Rgba8Unorm` target does; and the number of blends.
fn colour(locals: &[(Mat4, Look)], hits: &Hits, px: u32) -> ([u8; 4], usize) {
    let base = match hits.opaque.map(|k| locals[k].1) {
        Some(Look::Solid { color, tint }) => tint.map_or(color, |t| color * t),
        Some(Look::Stripes { dark, light, width }) => {
            // `select(dark, light, fract(p.x / (2.0 * w)) < 0.5)`, p.x the pixel centre.
            if ((px as f32 + 0.5) / (2.0 * width)).fract() < 0.5 { light } else { dark }
        }
        Some(Look::Glass(_)) => unreachable!("glass is never the opaque hit"),
        None => Vec4::ZERO,
    };
    let mut stored = unorm8(base);
    for &k in &hits.glass {
        let Look::Glass(add) = locals[k].1 else { unreachable!("only glass is listed") };
        let sum = Vec4::from_array(stored.map(|c| f32::from(c) / 255.0)) + add;
        stored = unorm8(sum);
    }
    (stored, hits.glass.len())
}

fn unorm8(v: Vec4) -> [u8; 4] {
    v.to_array().map(|c| (c.clamp(0.0, 1.0) * 255.0).round() as u8)
}
