// What tools/browser_check.py runs inside the page: JupyterLab's app is window.jupyterapp
// (--LabApp.expose_app_in_browser). Loaded into every page before JupyterLab's own scripts
// (Playwright's add_init_script); the Python side calls window.simhashLabCheck.NAME(arg).
"use strict";

window.simhashLabCheck = (() => {
  const WIDGET_MIME = "application/vnd.jupyter.widget-view+json";
  const panel = () => window.jupyterapp.shell.currentWidget;
  const text = (v) => (Array.isArray(v) ? v.join("") : typeof v === "string" ? v : "");

  return {
    // The notebook at `path` is open, its document ready and its kernel idle.
    ready(path) {
      const app = window.jupyterapp;
      if (!app || !app.shell) return false;
      const w = app.shell.currentWidget;
      if (!w || !w.context || w.context.path !== path || !w.context.isReady) return false;
      const s = w.sessionContext;
      return !!(s && s.session && s.session.kernel && s.session.kernel.status === "idle");
    },

    // Side panels closed: the notebook gets the whole width.
    layout() {
      window.jupyterapp.shell.collapseLeft();
      window.jupyterapp.shell.collapseRight();
    },

    // Number the cells (data-bc-index) and run "Restart Kernel and Run All".
    async run() {
      panel().content.widgets.forEach((c, i) => {
        c.node.dataset.bcIndex = String(i);
      });
      window.__bcRunStarted = Date.now();
      await window.jupyterapp.commands.execute("notebook:restart-run-all");
      return true;
    },

    // Done: kernel idle, no cell queued or running ([*]), every code cell with an execution count
    // or (run-all stops at an error) an error somewhere; stable over a few polls.
    done() {
      const p = panel();
      const kernel = p.sessionContext.session && p.sessionContext.session.kernel;
      if (!kernel || kernel.status !== "idle") {
        window.__bcStable = 0;
        return false;
      }
      let pending = false;
      let missing = 0;
      let errors = 0;
      for (const c of p.content.widgets) {
        if (c.model.type !== "code") continue;
        const prompt = c.node.querySelector(".jp-InputPrompt");
        if (prompt && prompt.textContent.includes("*")) pending = true;
        if (c.model.executionCount === null && c.model.sharedModel.getSource().trim()) missing++;
        for (let j = 0; j < c.model.outputs.length; j++) {
          if (c.model.outputs.get(j).type === "error") errors++;
        }
      }
      if (pending || (missing && !errors)) {
        window.__bcStable = 0;
        return false;
      }
      window.__bcStable = (window.__bcStable || 0) + 1;
      return window.__bcStable >= 3;
    },

    // Every code cell: its outputs (type, mime types, text), its widget views (live or not, the
    // failure texts they show), its animations (buttons, visible, first frame loaded), and what
    // each output node shows.
    report(failText) {
      const nb = panel().content;
      const cells = [];
      nb.widgets.forEach((c, i) => {
        if (c.model.type !== "code") return;
        const outs = [];
        for (let j = 0; j < c.model.outputs.length; j++) {
          const o = c.model.outputs.get(j).toJSON();
          const data = o.data || {};
          outs.push({
            type: o.output_type,
            name: o.name || null,
            mimes: Object.keys(data),
            text: (text(o.text) + text(data["text/plain"])).slice(0, 2000),
            html_animation: /class="animation"/.test(text(data["text/html"])),
            ename: o.ename || null,
            evalue: o.evalue || null,
          });
        }
        // widget views carry no data-mime-type: find them by the model's output index
        const children = [...c.node.querySelectorAll(".jp-OutputArea-child")];
        children.forEach((ch, j) => {
          ch.dataset.bcOut = String(j);
        });
        const widgets = [];
        outs.forEach((o, j) => {
          if (!o.mimes.includes(WIDGET_MIME)) return;
          const n = children[j] && children[j].querySelector(".jp-OutputArea-output");
          if (!n) {
            widgets.push({ out: j, live: false, failed: ["no output node"], height: 0, text: "" });
            return;
          }
          const r = n.getBoundingClientRect();
          widgets.push({
            out: j,
            live: !!n.querySelector('.jupyter-widgets, [class*="widget-"]'),
            failed: failText.filter((t) => n.textContent.includes(t)),
            height: r.height,
            text: n.textContent.slice(0, 200),
          });
        });
        const anims = [...c.node.querySelectorAll(".jp-OutputArea-output .animation")].map((a) => {
          const img = a.querySelector("img");
          return {
            buttons: a.querySelectorAll(".anim-buttons button").length,
            visible: a.getBoundingClientRect().height > 0,
            frame: !!(img && img.complete && img.naturalWidth > 0),
          };
        });
        const rendered = [...c.node.querySelectorAll(".jp-OutputArea-output")].map((n) => ({
          mime: n.dataset.mimeType || "",
          text: n.textContent.slice(0, 300),
        }));
        cells.push({ index: i, count: c.model.executionCount, outs, widgets, anims, rendered });
      });
      return {
        cells,
        nCells: nb.widgets.length,
        nCellNodes: nb.node.querySelectorAll(".jp-Cell").length,
        windowing: nb.notebookConfig ? nb.notebookConfig.windowingMode : null,
      };
    },

    // Every widget output settled: live, or failed for good ("Error displaying widget"); not
    // "Loading widget...".
    widgetsSettled(failText) {
      const nodes = [];
      for (const c of panel().content.widgets) {
        if (c.model.type !== "code") continue;
        const children = c.node.querySelectorAll(".jp-OutputArea-child");
        for (let j = 0; j < c.model.outputs.length; j++) {
          const o = c.model.outputs.get(j).toJSON();
          if (!(o.data && o.data[WIDGET_MIME])) continue;
          const n = children[j] && children[j].querySelector(".jp-OutputArea-output");
          if (!n) return false;
          nodes.push(n);
        }
      }
      for (const n of nodes) {
        if (n.textContent.includes("Loading widget")) return false;
        if (failText.some((t) => n.textContent.includes(t))) continue;
        if (!n.querySelector('.jupyter-widgets, [class*="widget-"]')) return false;
      }
      return true;
    },

    // As opened: does each stored widget output (cells `indices`) show live, or as text, and
    // which of its pictures have loaded (a stepper's fallback is an animated image)?
    storedWidgets(indices) {
      const nb = panel().content;
      return indices.map((i) => {
        const n = nb.widgets[i].node.querySelector(".jp-OutputArea");
        const imgs = n ? [...n.querySelectorAll("img")] : [];
        const loaded = imgs.filter((im) => im.complete && im.naturalWidth > 0).length;
        return [i, !!(n && n.querySelector(".jupyter-widgets")), n ? n.textContent.trim() : "", imgs.length, loaded];
      });
    },

    // Back to the top, no cell focused (before a screenshot).
    toTop() {
      const n = panel().content;
      n.activeCellIndex = 0;
      n.node.querySelector(".jp-WindowedPanel-outer").scrollTop = 0;
      if (document.activeElement) document.activeElement.blur();
    },

    // The notebook's full height, in pixels.
    scrollHeight() {
      const nb = panel().content;
      const outer = nb.node.querySelector(".jp-WindowedPanel-outer") || nb.node;
      return outer.scrollHeight;
    },

    // Where the last cell ends, in page pixels (the notebook pads its end with empty space).
    lastCellBottom() {
      const cells = panel().content.node.querySelectorAll(".jp-Cell");
      return cells.length ? cells[cells.length - 1].getBoundingClientRect().bottom : 0;
    },

    // Shut the notebook's kernel down.
    shutdown() {
      return panel().sessionContext.shutdown();
    },
  };
})();
