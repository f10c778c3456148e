pub fn encode(source: &str) -> String {
    todo!("encode {source:?}")
}

pub fn decode(source: &str) -> String {
    todo!("decode {source:?}")
}
