// The dashboard's entry: the shell (app.tsx) into #app, with the one stylesheet.
import { render } from "preact";
import { App } from "./app.tsx";
import "./styles.css";

const root = document.getElementById("app");
if (root) render(<App />, root);
