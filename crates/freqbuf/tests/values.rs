//! glam's and mint's values reach shaders with WGSL's layouts: padded
//! `mat3x3<f32>` columns, quaternions as `vec4<f32>`, row-major mint matrices
//! transposed.

use crate::common;

use common::gpu;
use common::scene::{Kind, Report, Rig, TestShader};
use freqbuf::{Draw, Manager, SlotPlan};

const ALL: TestShader = TestShader {
    tag: 61,
    wgsl: r#"
struct V { v2: vec2<f32>, v3: vec3<f32>, v4: vec4<f32>, iv3: vec3<i32>, uv2: vec2<u32>,
           m2: mat2x2<f32>, m3: mat3x3<f32>, m4: mat4x4<f32>, q: vec4<f32> }
@group(0) @binding(3) var<uniform> v: V;
fn put2(x: vec2<f32>) { putf(x.x); putf(x.y); }
@compute @workgroup_size(1) fn main() {
    begin(61u);
    put2(v.v2); put3(v.v3); put4(v.v4);
    put(bitcast<u32>(v.iv3.x)); put(bitcast<u32>(v.iv3.y)); put(bitcast<u32>(v.iv3.z));
    put(v.uv2.x); put(v.uv2.y);
    put2(v.m2[0]); put2(v.m2[1]);
    put3(v.m3[0]); put3(v.m3[1]); put3(v.m3[2]);
    put_m4(v.m4); put4(v.q);
}
"#,
    // 47 words; the names are not looked up.
    reports: &[
        Report { name: "m4", kind: Kind::Mat4 },
        Report { name: "m4", kind: Kind::Mat4 },
        Report { name: "v4", kind: Kind::Vec4 },
        Report { name: "v4", kind: Kind::Vec4 },
        Report { name: "v4", kind: Kind::Vec4 },
        Report { name: "v3", kind: Kind::Vec3 },
    ],
};

/// What the shader reports when member k holds the numbers base+1, base+2, ...
fn expected(base: f32) -> Vec<u32> {
    let f = |n: f32| (base + n).to_bits();
    let mut w = vec![61];
    w.extend((1..=9).map(|n| f(n as f32)));
    w.extend([-1i32, -2, -3].map(|i| (i - base as i32) as u32));
    w.extend([10, 11].map(|u| u + base as u32));
    w.extend((12..=44).map(|n| f(n as f32)));
    w
}

/// On wgpu's GL backend a uniform block's `mat2x2` would read wrongly
/// (wgpu#4371), so `ALL` is refused, typed, at registration: checked here
/// instead of the values.
fn refused_on_gl(h: &freqbuf::Headless) -> bool {
    if h.info.backend != wgpu::Backend::Gl {
        return false;
    }
    let mut m = Manager::new(&h.device, SlotPlan::default());
    let src = common::scene::source(&ALL);
    let shader =
        freqbuf::reflect::ShaderReflection::new("all.wgsl", freqbuf::reflect::ShaderSource::Wgsl(&src))
            .unwrap();
    let err = m.register(shader).unwrap_err();
    let text = common::chain(&err);
    assert!(
        text.contains("(`v` at @group(0) @binding(3)): it holds a mat2x2, and on wgpu's GL backend"),
        "{text}"
    );
    true
}

fn run(m: &mut Manager, rig: &Rig, id: freqbuf::ShaderId) -> Vec<u32> {
    let h = gpu::device().unwrap();
    m.flush(&h.queue).unwrap();
    rig.run(h, m, &[Draw::new(id)]).remove(0)
}

#[test]
fn glam_values_have_wgsl_layouts() {
    let Some(h) = gpu::device() else { return };
    if refused_on_gl(h) {
        return;
    }
    let mut m = Manager::new(&h.device, SlotPlan::default());
    let mut rig = Rig::new(&h.device, 1);
    let id = rig.register(&h.device, &mut m, &ALL);
    let n = |k: usize| (1..=k as u32).map(|i| i as f32).collect::<Vec<_>>();
    let seq = |from: usize, len: usize| n(from + len)[from..].to_vec();
    let mut f = m.frame();
    f.set_by_name("v2", &glam::Vec2::from_slice(&seq(0, 2))).unwrap();
    f.set_by_name("v3", &glam::Vec3A::from_slice(&seq(2, 3))).unwrap();
    f.set_by_name("v4", &glam::Vec4::from_slice(&seq(5, 4))).unwrap();
    f.set_by_name("iv3", &glam::IVec3::new(-1, -2, -3)).unwrap();
    f.set_by_name("uv2", &glam::UVec2::new(10, 11)).unwrap();
    f.set_by_name("m2", &glam::Mat2::from_cols_slice(&seq(11, 4))).unwrap();
    f.set_by_name("m3", &glam::Mat3::from_cols_slice(&seq(15, 9))).unwrap();
    f.set_by_name("m4", &glam::Mat4::from_cols_slice(&seq(24, 16))).unwrap();
    f.set_by_name("q", &glam::Quat::from_xyzw(41.0, 42.0, 43.0, 44.0)).unwrap();
    // A vec3 member refuses a Vec4.
    assert!(f.set_by_name("v3", &glam::Vec4::ZERO).is_err());
    assert_eq!(run(&mut m, &rig, id), expected(0.0));
}

#[test]
fn mint_values_have_wgsl_layouts() {
    let Some(h) = gpu::device() else { return };
    if refused_on_gl(h) {
        return;
    }
    let mut m = Manager::new(&h.device, SlotPlan::default());
    let mut rig = Rig::new(&h.device, 1);
    let id = rig.register(&h.device, &mut m, &ALL);
    let b = 100.0;
    let mut f = m.frame();
    f.set_by_name("v2", &mint::Vector2 { x: b + 1.0, y: b + 2.0 }).unwrap();
    f.set_by_name("v3", &mint::Vector3 { x: b + 3.0, y: b + 4.0, z: b + 5.0 }).unwrap();
    f.set_by_name("v4", &mint::Vector4::from([b + 6.0, b + 7.0, b + 8.0, b + 9.0])).unwrap();
    f.set_by_name("iv3", &mint::Vector3 { x: -101, y: -102, z: -103 }).unwrap();
    f.set_by_name("uv2", &mint::Vector2 { x: 110u32, y: 111 }).unwrap();
    // Row-major: rows are (12, 14) and (13, 15), so the columns are (12, 13), (14, 15).
    f.set_by_name("m2", &mint::RowMatrix2::from([[b + 12.0, b + 14.0], [b + 13.0, b + 15.0]])).unwrap();
    let c3 = [[b + 16.0, b + 17.0, b + 18.0], [b + 19.0, b + 20.0, b + 21.0], [b + 22.0, b + 23.0, b + 24.0]];
    f.set_by_name("m3", &mint::ColumnMatrix3::from(c3)).unwrap();
    let c4: [[f32; 4]; 4] = std::array::from_fn(|c| std::array::from_fn(|r| b + 25.0 + (c * 4 + r) as f32));
    f.set_by_name("m4", &mint::ColumnMatrix4::from(c4)).unwrap();
    f.set_by_name(
        "q",
        &mint::Quaternion { v: mint::Vector3 { x: b + 41.0, y: b + 42.0, z: b + 43.0 }, s: b + 44.0 },
    )
    .unwrap();
    assert_eq!(run(&mut m, &rig, id), expected(b));
    // Plain arrays: a [[f32; 3]; 3] is padded too.
    let mut f = m.frame();
    f.set_by_name("m3", &[[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]).unwrap();
    let rec = run(&mut m, &rig, id);
    let m3 = rec[1 + 9 + 5 + 4..1 + 9 + 5 + 4 + 9].iter().map(|&w| f32::from_bits(w)).collect::<Vec<_>>();
    assert_eq!(m3, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
}
