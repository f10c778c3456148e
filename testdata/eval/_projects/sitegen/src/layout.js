import { compile } from './template.js';

// Layouts is a cache of compiled templates by name, read through load
// (name → source).
export class Layouts {
  constructor(load) {
    this.load = load;
    this.cache = new Map();
  }

  get(name) {
    if (!this.cache.has(name)) this.cache.set(name, compile(this.load(name), name));
    return this.cache.get(name);
  }

  // render renders content with layout name; a layout may name its own
  // outer layout in a first line "{{! layout: base}}".
  render(name, data) {
    const source = this.load(name);
    const m = /^\{\{!\s*layout:\s*(\w+)\s*\}\}\n?/.exec(source);
    const html = m ? compile(source.slice(m[0].length), name)(data) : this.get(name)(data);
    return m ? this.render(m[1], { ...data, content: html }) : html;
  }
}
