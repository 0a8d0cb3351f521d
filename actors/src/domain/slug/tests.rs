//! Tests of workspace slugs: the examples, the length cap and the suffix taken
//! on a collision.

use super::*;

#[test]
fn slugs_follow_the_data_model_examples() {
    assert_eq!(slugify("My API!!"), "my-api");
    assert_eq!(slugify("  spaced  out  "), "spaced-out");
    assert_eq!(slugify("UPPER_snake"), "upper-snake");
    assert_eq!(slugify("!!!"), "ws");
    assert_eq!(slugify(""), "ws");
    assert_eq!(slugify("café au lait"), "caf-au-lait");
}

#[test]
fn slugs_stop_at_32_bytes_and_never_end_with_a_dash() {
    let long = "a".repeat(40);
    assert_eq!(slugify(&long).len(), 32);
    let name = format!("{} tail", "b".repeat(31));
    let slug = slugify(&name);
    assert!(slug.len() <= 32 && !slug.ends_with('-'), "{slug}");
}

#[test]
fn collisions_take_the_first_free_numeric_suffix() {
    let taken = ["my-api", "my-api-2"];
    assert_eq!(unique_handle("My API", |h| taken.contains(&h)), "my-api-3");
    assert_eq!(unique_handle("Other", |h| taken.contains(&h)), "other");
}
