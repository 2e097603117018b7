//! The matrix and vector types the auto-constant inputs take: plain arrays,
//! glam's (a dependency already) and mint's (the interchange crate that
//! nalgebra, cgmath and others convert to), so no caller converts by hand.

/// A 4×4 `f32` matrix by columns: `[[f32; 4]; 4]`, `glam::Mat4` or
/// `mint::ColumnMatrix4<f32>`.
pub trait IntoColumns {
    /// The columns.
    fn into_columns(self) -> [[f32; 4]; 4];
}

impl IntoColumns for [[f32; 4]; 4] {
    #[inline]
    fn into_columns(self) -> [[f32; 4]; 4] {
        self
    }
}

impl IntoColumns for glam::Mat4 {
    #[inline]
    fn into_columns(self) -> [[f32; 4]; 4] {
        self.to_cols_array_2d()
    }
}

impl IntoColumns for mint::ColumnMatrix4<f32> {
    #[inline]
    fn into_columns(self) -> [[f32; 4]; 4] {
        self.into()
    }
}

/// A 2-vector of `f32`: `[f32; 2]`, `glam::Vec2` or `mint::Vector2<f32>`.
pub trait IntoVec2 {
    /// The components.
    fn into_array(self) -> [f32; 2];
}

impl IntoVec2 for [f32; 2] {
    #[inline]
    fn into_array(self) -> [f32; 2] {
        self
    }
}

impl IntoVec2 for glam::Vec2 {
    #[inline]
    fn into_array(self) -> [f32; 2] {
        self.to_array()
    }
}

impl IntoVec2 for mint::Vector2<f32> {
    #[inline]
    fn into_array(self) -> [f32; 2] {
        self.into()
    }
}
