#define_import_path bevy_render::maths

const PI: f32 = 3.141592653589793;

fn powsafe(color: vec3<f32>, power: f32) -> vec3<f32> {
    return pow(abs(color), vec3(power)) * sign(color);
}
