// The seed's canonical Rust Simhash (session 60, section 4), unchanged, plus a `main` that the
// tests use as the reference: it reads NUL-separated documents on stdin and prints, per document,
// `Simhash::compute(doc)` and then `hash_token(doc)` (Rust's DefaultHasher over the &str).
use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::io::Read;

pub struct Simhash;

impl Simhash {
    fn hash_token(token: &str) -> u64 {
        let mut hasher = DefaultHasher::new();
        token.hash(&mut hasher);
        hasher.finish()
    }

    pub fn compute(text: &str) -> u64 {
        let mut v = [0i64; 64];
        let mut word_weights: HashMap<&str, i64> = HashMap::new();

        for word in text.split_whitespace() {
            let clean = word.trim_matches(|c: char| !c.is_alphanumeric());
            if !clean.is_empty() {
                *word_weights.entry(clean).or_insert(0) += 1;
            }
        }

        if word_weights.is_empty() {
            return 0;
        }

        for (token, weight) in word_weights {
            let token_hash = Self::hash_token(token);
            for i in 0..64 {
                let bit = (token_hash >> i) & 1;
                if bit == 1 {
                    v[i] += weight;
                } else {
                    v[i] -= weight;
                }
            }
        }

        let mut fingerprint: u64 = 0;
        for i in 0..64 {
            if v[i] > 0 {
                fingerprint |= 1u64 << i;
            }
        }
        fingerprint
    }
}

fn main() {
    let mut input = String::new();
    std::io::stdin().read_to_string(&mut input).unwrap();
    for doc in input.split('\0') {
        println!("{} {}", Simhash::compute(doc), Simhash::hash_token(doc));
    }
}
