// Colors shared by the kinds' renderers (kinds/*.js): balls, jewels and
// tiles carry a letter as well as a color.

// named colors: the letters designers use for them get them.
const named = {R: '#e5484d', G: '#46a758', B: '#3e8ef7', Y: '#f5d90a', W: '#f4f4f0', P: '#8e4ec6',
  O: '#f76b15', C: '#12a5b8', M: '#d6409f', K: '#4a4a4a', N: '#a07553', S: '#9ba1a6'};

// palette is for tile types and letters without a named color: 16 hues
// far apart, in an order where neighbours differ.
const palette = ['#e5484d', '#3e8ef7', '#f5d90a', '#46a758', '#8e4ec6', '#f76b15', '#12a5b8', '#d6409f',
  '#a07553', '#9ba1a6', '#7ce2fe', '#ffb8c6', '#b5e61d', '#c4a5ff', '#ffd8a8', '#2f6f4f'];

// color gives a letter A–Z, or a sheep tile type (a number), its color.
export function color(key) {
  if (typeof key === 'number') return palette[((key % palette.length) + palette.length) % palette.length];
  return named[key] || palette[(key.charCodeAt(0) - 65) % palette.length];
}
