//! Shapes that must keep compiling (and meaning the same) after the rewrite.
use std::sync::Mutex;

use shutdown_runtime::drainable;

#[derive(Debug)]
struct Point {
    x: i32,
    y: i32,
}

#[drainable]
fn temporaries(queue: &Mutex<Vec<u32>>, lines: &Mutex<Vec<String>>) -> usize {
    let mut n = 0;
    // the guard lives through the body, as in the original `while let`
    while let Some(x) = queue.lock().unwrap().pop() {
        n += x as usize;
    }
    // a reference into a temporary, used in the body
    for line in lines.lock().unwrap().iter() {
        n += line.len();
    }
    n
}

#[drainable]
fn patterns(points: &[Point], pairs: Vec<(u8, u8)>) -> i32 {
    let mut sum = 0;
    for &Point { x, y } in points {
        sum += x * y;
    }
    for (a, b) in pairs {
        sum += i32::from(a) - i32::from(b);
    }
    'outer: for row in 0..3 {
        'outer2: for col in 0.. {
            if col > row {
                continue 'outer;
            }
            if col == 2 {
                break 'outer2;
            }
            sum += 1;
        }
    }
    sum
}

#[drainable]
fn value_contexts(flag: bool) -> Result<u32, String> {
    let from_loop = loop {
        break 7;
    };
    let chosen = match flag {
        true => from_loop,
        false => loop {
            return Err("never".into());
        },
    };
    let closure = || -> Result<u32, String> {
        loop {
            if chosen > 0 {
                return Ok(chosen);
            }
        }
    };
    let job = async {
        loop {
            u32::try_from(-1_i64).map_err(|e| e.to_string())?;
        }
        #[allow(unreachable_code)]
        Ok::<(), String>(())
    };
    drop(job);
    let _ = std::thread::spawn(move || {
        let mut n = 0u32;
        loop {
            n += 1;
            if n > 3 {
                break;
            }
        }
        n
    })
    .join();
    let opt = Some(3);
    let Some(three) = opt else {
        loop {
            std::thread::yield_now();
        }
    };
    closure().map(|v| v + three)
}

#[drainable]
fn diverges() -> ! {
    loop {
        std::thread::park();
    }
}

#[drainable]
fn generic<'a, T: Clone + 'a>(items: impl IntoIterator<Item = &'a T>) -> Vec<T> {
    fn nested() -> u32 {
        let mut i = 0;
        while i < 3 {
            i += 1;
        }
        i
    }
    let mut out = Vec::new();
    items.into_iter().for_each(|item| {
        for _ in 0..nested() {
            out.push(item.clone());
        }
    });
    {
        loop {
            if !out.is_empty() {
                break;
            }
            out.reserve(0);
            break;
        }
    }
    out
}

#[drainable]
async fn spawns_in_spawns() -> u32 {
    let outer = tokio::spawn(async {
        let inner = tokio::spawn(async { 20 });
        let mut total = 0;
        for v in [1, 2] {
            total += v;
        }
        total + inner.await.unwrap()
    });
    let counter = async move || {
        let mut n = 0;
        while n < 2 {
            n += 1;
        }
        n
    };
    outer.await.unwrap() + counter().await
}

fn main() {
    let queue = Mutex::new(vec![1, 2, 3]);
    let lines = Mutex::new(vec!["ab".to_owned()]);
    assert_eq!(temporaries(&queue, &lines), 8);
    let points = [Point { x: 2, y: 3 }, Point { x: 1, y: 1 }];
    assert_eq!(patterns(&points, vec![(5, 1)]), 6 + 1 + 4 + 1 + 2 + 2);
    assert_eq!(value_contexts(true), Ok(10));
    let _: fn() -> ! = diverges;
    assert_eq!(generic(&[1u8, 2]).len(), 6);
    let rt = tokio::runtime::Runtime::new().unwrap();
    assert_eq!(rt.block_on(spawns_in_spawns()), 25);
    println!("{:?}", points[0]);
}
