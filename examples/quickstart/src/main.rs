//! Typed calls to the bundled demo server through bindings generated from
//! `mcpbind.lock` by `build.rs`.

mcpbind::include_bindings!();

use demo::types::{AddInput, DrawShapeInput, GetWeatherInput, SetModeInput, Shape, Units};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let config = mcpbind::Config::load(concat!(env!("CARGO_MANIFEST_DIR"), "/mcpbind.toml"))?;
    let demo = demo::Client::connect(&config).await?;

    let sum = demo.add(AddInput { a: 2, b: 40 }).await?;
    println!("add(2, 40)           -> sum = {}", sum.output.sum);

    let area = demo
        .draw_shape(DrawShapeInput {
            shape: Shape::Circle { radius: 1.5 },
        })
        .await?;
    println!("draw_shape(circle)   -> area = {:.3}", area.output.area);

    let weather = demo
        .get_weather(GetWeatherInput {
            city: "Lisbon".into(),
            units: Some(Units::Celsius),
        })
        .await?;
    let w = &weather.output;
    println!(
        "get_weather(Lisbon)  -> {} °C, {}",
        w.temperature, w.conditions
    );

    let mode = demo
        .set_mode(SetModeInput {
            mode: demo::types::Mode::FastMode,
        })
        .await?;
    println!("set_mode(fast-mode)  -> {}", mode.text());

    // A tool that reports failure is an error naming the server and tool.
    match demo
        .fail(demo::types::FailInput {
            message: "as designed".into(),
        })
        .await
    {
        Err(e) => println!("fail(...)            -> error: {e}"),
        Ok(_) => println!("fail(...)            -> unexpectedly succeeded"),
    }
    Ok(())
}
