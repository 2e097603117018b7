//! [`Uniform`] for glam's and mint's types (features `glam`, `mint`).
//!
//! Vectors and 2×2 and 4×4 matrices are written as they are; a 3×3 matrix is
//! written with WGSL's padded `mat3x3<f32>` layout (three 16-byte columns);
//! a quaternion is a `vec4<f32>` (x, y, z, w); glam's `Vec3A` is a `vec3<f32>`.
//! mint's row-major matrices are transposed into columns.

use naga::ScalarKind::{Float, Sint, Uint};

use crate::reflect::ValueType;
use crate::write::param::{Uniform, pad3};

/// `Uniform` through a conversion to a plain array.
macro_rules! uniform_via {
    ($($t:ty => $ty:expr, $gpu:ty, |$v:ident| $conv:expr;)*) => {$(
        impl Uniform for $t {
            const TYPE: ValueType = $ty;
            type Gpu = $gpu;
            #[inline]
            fn to_gpu(&self) -> $gpu {
                let $v = self;
                $conv
            }
        }
    )*};
}

#[cfg(feature = "glam")]
uniform_via! {
    glam::Vec2 => ValueType::vector(Float, 4, 2), [f32; 2], |v| v.to_array();
    glam::Vec3 => ValueType::vector(Float, 4, 3), [f32; 3], |v| v.to_array();
    glam::Vec3A => ValueType::vector(Float, 4, 3), [f32; 3], |v| v.to_array();
    glam::Vec4 => ValueType::vector(Float, 4, 4), [f32; 4], |v| v.to_array();
    glam::IVec2 => ValueType::vector(Sint, 4, 2), [i32; 2], |v| v.to_array();
    glam::IVec3 => ValueType::vector(Sint, 4, 3), [i32; 3], |v| v.to_array();
    glam::IVec4 => ValueType::vector(Sint, 4, 4), [i32; 4], |v| v.to_array();
    glam::UVec2 => ValueType::vector(Uint, 4, 2), [u32; 2], |v| v.to_array();
    glam::UVec3 => ValueType::vector(Uint, 4, 3), [u32; 3], |v| v.to_array();
    glam::UVec4 => ValueType::vector(Uint, 4, 4), [u32; 4], |v| v.to_array();
    glam::Mat2 => ValueType::matrix(Float, 4, 2, 2), [[f32; 2]; 2], |m| m.to_cols_array_2d();
    glam::Mat3 => ValueType::matrix(Float, 4, 3, 3), [[f32; 4]; 3], |m| pad3(m.to_cols_array_2d());
    glam::Mat3A => ValueType::matrix(Float, 4, 3, 3), [[f32; 4]; 3], |m| pad3(m.to_cols_array_2d());
    glam::Mat4 => ValueType::matrix(Float, 4, 4, 4), [[f32; 4]; 4], |m| m.to_cols_array_2d();
    glam::Quat => ValueType::vector(Float, 4, 4), [f32; 4], |q| q.to_array();
}

#[cfg(feature = "mint")]
uniform_via! {
    mint::Vector2<f32> => ValueType::vector(Float, 4, 2), [f32; 2], |v| (*v).into();
    mint::Vector3<f32> => ValueType::vector(Float, 4, 3), [f32; 3], |v| (*v).into();
    mint::Vector4<f32> => ValueType::vector(Float, 4, 4), [f32; 4], |v| (*v).into();
    mint::Vector2<i32> => ValueType::vector(Sint, 4, 2), [i32; 2], |v| (*v).into();
    mint::Vector3<i32> => ValueType::vector(Sint, 4, 3), [i32; 3], |v| (*v).into();
    mint::Vector4<i32> => ValueType::vector(Sint, 4, 4), [i32; 4], |v| (*v).into();
    mint::Vector2<u32> => ValueType::vector(Uint, 4, 2), [u32; 2], |v| (*v).into();
    mint::Vector3<u32> => ValueType::vector(Uint, 4, 3), [u32; 3], |v| (*v).into();
    mint::Vector4<u32> => ValueType::vector(Uint, 4, 4), [u32; 4], |v| (*v).into();
    mint::ColumnMatrix2<f32> => ValueType::matrix(Float, 4, 2, 2), [[f32; 2]; 2], |m| (*m).into();
    mint::ColumnMatrix3<f32> => ValueType::matrix(Float, 4, 3, 3), [[f32; 4]; 3], |m| pad3((*m).into());
    mint::ColumnMatrix4<f32> => ValueType::matrix(Float, 4, 4, 4), [[f32; 4]; 4], |m| (*m).into();
    mint::RowMatrix2<f32> => ValueType::matrix(Float, 4, 2, 2), [[f32; 2]; 2], |m| mint::ColumnMatrix2::from(*m).into();
    mint::RowMatrix3<f32> => ValueType::matrix(Float, 4, 3, 3), [[f32; 4]; 3], |m| pad3(mint::ColumnMatrix3::from(*m).into());
    mint::RowMatrix4<f32> => ValueType::matrix(Float, 4, 4, 4), [[f32; 4]; 4], |m| mint::ColumnMatrix4::from(*m).into();
    mint::Quaternion<f32> => ValueType::vector(Float, 4, 4), [f32; 4], |q| [q.v.x, q.v.y, q.v.z, q.s];
}
