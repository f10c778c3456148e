pub fn encode(source: &str) -> String {
    let mut out = String::new();
    let chars: Vec<char> = source.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let mut j = i;
        while j < chars.len() && chars[j] == chars[i] {
            j += 1;
        }
        if j - i > 1 {
            out.push_str(&(j - i).to_string());
        }
        out.push(chars[i]);
        i = j;
    }
    out
}

pub fn decode(source: &str) -> String {
    let mut out = String::new();
    let mut count = String::new();
    for c in source.chars() {
        if c.is_ascii_digit() {
            count.push(c);
            continue;
        }
        let n = count.parse::<usize>().unwrap_or(1);
        out.extend(std::iter::repeat(c).take(n));
        count.clear();
    }
    out
}
