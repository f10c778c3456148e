pub fn add(a: i32, b: i32) -> i32 {
    let unused = 3;
    a - b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_adds() {
        assert_eq!(add(2, 2), 4);
    }

    #[test]
    fn it_panics() {
        let v: Vec<i32> = Vec::new();
        let _ = v[3];
    }

    #[test]
    fn it_passes() {}
}
