pub fn add(a: i32, b: i32) -> i32 {
    let unused = 3;
    let s: String = a + b;
    s
}

pub fn name() -> &'static str {
    undefined_fn()
}
