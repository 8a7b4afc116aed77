// Sigma node and edge programs that draw every item of a layer in ONE non-instanced draw call.
//
// Sigma 3's own programs (NodeCircleProgram, EdgeArrowProgram = EdgeClampedProgram + EdgeArrowHeadProgram)
// are instanced: one small vertex list drawn once per node or edge. That is what GPUs are made for, but
// Chromium without one runs WebGL on SwiftShader, which executes an instanced draw as one full draw call
// per instance (SwiftShader's CmdDrawBase::draw loops over the instances). Measured with the pan of
// `npm run bench:spa` on 2,000 nodes: about 75 ms of GPU-process CPU per frame for the nodes alone, and
// several hundred ms per frame once the 6,000 arrows are drawn. These programs write each item's vertices
// out in full (3 per node, 6 + 3 per arrow), so a layer costs one draw call (two for the arrows: bodies
// and heads) whatever its size. The vertex and fragment maths are those of sigma's programs, and
// test/e2e/graph-canvas.test.ts checks that the pictures are the same, pixel for pixel.
import type { Attributes } from 'graphology-types';
import type Sigma from 'sigma';
import {
  AbstractEdgeProgram,
  createEdgeCompoundProgram,
  drawStraightEdgeLabel,
  type EdgeLabelDrawingFunction,
  EdgeProgram,
  type EdgeProgramType,
  NodeProgram,
  type ProgramInfo,
} from 'sigma/rendering';
import type { EdgeDisplayData, NodeDisplayData, RenderParams } from 'sigma/types';
import { floatColor } from 'sigma/utils';

const { FLOAT, UNSIGNED_BYTE, TRIANGLES } = WebGLRenderingContext;
const COLOR = { size: 4, type: UNSIGNED_BYTE, normalized: true };
/** Alpha is stored as 0..254 by sigma's floatColor; this brings it back to 1. */
const BIAS = 'const float bias = 255.0 / 254.0;';

/** A node as an anti-aliased disc inside one triangle (sigma's NodeCircleProgram, not instanced). */
const DISC_VERTEX = /* glsl */ `
attribute vec4 a_id;
attribute vec4 a_color;
attribute vec2 a_position;
attribute float a_size;
attribute float a_angle;
uniform mat3 u_matrix;
uniform float u_sizeRatio;
uniform float u_correctionRatio;
varying vec4 v_color;
varying vec2 v_diffVector;
varying float v_radius;
${BIAS}
void main() {
  float size = a_size * u_correctionRatio / u_sizeRatio * 4.0;
  vec2 diffVector = size * vec2(cos(a_angle), sin(a_angle));
  gl_Position = vec4((u_matrix * vec3(a_position + diffVector, 1)).xy, 0, 1);
  v_diffVector = diffVector;
  v_radius = size / 2.0;
  #ifdef PICKING_MODE
  v_color = a_id;
  #else
  v_color = a_color;
  #endif
  v_color.a *= bias;
}`;

const DISC_FRAGMENT = /* glsl */ `
precision highp float;
varying vec4 v_color;
varying vec2 v_diffVector;
varying float v_radius;
uniform float u_correctionRatio;
const vec4 transparent = vec4(0.0, 0.0, 0.0, 0.0);
void main(void) {
  float border = u_correctionRatio * 2.0;
  float dist = length(v_diffVector) - v_radius + border;
  #ifdef PICKING_MODE
  gl_FragColor = dist > border ? transparent : v_color;
  #else
  float t = dist > border ? 1.0 : dist > 0.0 ? dist / border : 0.0;
  gl_FragColor = mix(v_color, transparent, t);
  #endif
}`;

/** Sigma's own test for a moving stage (the one behind hideEdgesOnMove and hideLabelsOnMove). */
export function cameraMoving<N extends Attributes, E extends Attributes, G extends Attributes>(
  renderer: Sigma<N, E, G>,
): boolean {
  const mouse = renderer.getMouseCaptor();
  return (
    renderer.getCamera().isAnimated() ||
    mouse.isMoving ||
    mouse.draggedEvents > 0 ||
    mouse.currentWheelDirection !== 0
  );
}

const DISC_ANGLES = [0, (2 * Math.PI) / 3, (4 * Math.PI) / 3];
const DISC_UNIFORMS = ['u_sizeRatio', 'u_correctionRatio', 'u_matrix'] as const;

export class NodeDiscProgram<
  N extends Attributes = Attributes,
  E extends Attributes = Attributes,
  G extends Attributes = Attributes,
> extends NodeProgram<(typeof DISC_UNIFORMS)[number], N, E, G> {
  getDefinition() {
    return {
      VERTICES: 3,
      VERTEX_SHADER_SOURCE: DISC_VERTEX,
      FRAGMENT_SHADER_SOURCE: DISC_FRAGMENT,
      METHOD: TRIANGLES,
      UNIFORMS: DISC_UNIFORMS,
      ATTRIBUTES: [
        { name: 'a_position', size: 2, type: FLOAT },
        { name: 'a_size', size: 1, type: FLOAT },
        { name: 'a_color', ...COLOR },
        { name: 'a_id', ...COLOR },
        { name: 'a_angle', size: 1, type: FLOAT },
      ],
    };
  }

  processVisibleItem(nodeIndex: number, startIndex: number, data: NodeDisplayData): void {
    const array = this.array;
    const color = floatColor(data.color);
    let i = startIndex;
    for (const angle of DISC_ANGLES) {
      array[i++] = data.x;
      array[i++] = data.y;
      array[i++] = data.size;
      array[i++] = color;
      array[i++] = nodeIndex;
      array[i++] = angle;
    }
  }

  /**
   * The picking pass (every node again, in its id colour, for hover and click) is skipped while the
   * camera moves: nothing is hovered or clicked then, and the frame that follows the move draws it.
   */
  override render(params: RenderParams): void {
    if (!cameraMoving(this.renderer)) {
      super.render(params);
      return;
    }
    if (this.hasNothingToRender()) return;
    const program = this.normalProgram;
    program.gl.viewport(0, 0, params.width * params.pixelRatio, params.height * params.pixelRatio);
    this.bindProgram(program);
    this.renderProgram(params, program);
    this.unbindProgram(program);
  }

  setUniforms(
    params: RenderParams,
    { gl, uniformLocations }: ProgramInfo<(typeof DISC_UNIFORMS)[number]>,
  ): void {
    gl.uniform1f(uniformLocations.u_correctionRatio, params.correctionRatio);
    gl.uniform1f(uniformLocations.u_sizeRatio, params.sizeRatio);
    gl.uniformMatrix3fv(uniformLocations.u_matrix, false, params.matrix);
  }
}

/** Arrow proportions, sigma's defaults. */
const ARROW_LENGTH_TO_THICKNESS = 2.5;
const ARROW_WIDENESS_TO_THICKNESS = 2;

/** The body of an arrow: a quad from the source to the target's border less the head (sigma's EdgeClampedProgram). */
const BODY_VERTEX = /* glsl */ `
attribute vec4 a_id;
attribute vec4 a_color;
attribute vec2 a_position;
attribute vec2 a_normal;
attribute float a_radius;
uniform mat3 u_matrix;
uniform float u_zoomRatio;
uniform float u_sizeRatio;
uniform float u_pixelRatio;
uniform float u_correctionRatio;
uniform float u_minEdgeThickness;
uniform float u_lengthToThicknessRatio;
uniform float u_feather;
varying vec4 v_color;
varying vec2 v_normal;
varying float v_thickness;
varying float v_feather;
${BIAS}
void main() {
  float normalLength = length(a_normal);
  vec2 unitNormal = a_normal / normalLength;
  float pixelsThickness = max(normalLength, u_minEdgeThickness * u_sizeRatio);
  float webGLThickness = pixelsThickness * u_correctionRatio / u_sizeRatio;
  // a_radius is 0 at the source end and +-(target size) at the target end, signed like the normal.
  float direction = sign(a_radius);
  float webGLNodeRadius = direction * a_radius * 2.0 * u_correctionRatio / u_sizeRatio;
  float webGLArrowHeadLength = webGLThickness * u_lengthToThicknessRatio * 2.0;
  vec2 compensation = vec2(-direction * unitNormal.y, direction * unitNormal.x) * (webGLNodeRadius + webGLArrowHeadLength);
  gl_Position = vec4((u_matrix * vec3(a_position + unitNormal * webGLThickness + compensation, 1)).xy, 0, 1);
  v_thickness = webGLThickness / u_zoomRatio;
  v_normal = unitNormal;
  v_feather = u_feather * u_correctionRatio / u_zoomRatio / u_pixelRatio * 2.0;
  #ifdef PICKING_MODE
  v_color = a_id;
  #else
  v_color = a_color;
  #endif
  v_color.a *= bias;
}`;

const BODY_FRAGMENT = /* glsl */ `
precision mediump float;
varying vec4 v_color;
varying vec2 v_normal;
varying float v_thickness;
varying float v_feather;
const vec4 transparent = vec4(0.0, 0.0, 0.0, 0.0);
void main(void) {
  #ifdef PICKING_MODE
  gl_FragColor = v_color;
  #else
  float dist = length(v_normal) * v_thickness;
  gl_FragColor = mix(v_color, transparent, smoothstep(v_thickness - v_feather, v_thickness, dist));
  #endif
}`;

/** The six corners of the body: [at the target?, side of the normal]. */
const BODY_CORNERS: ReadonlyArray<readonly [0 | 1, 1 | -1]> = [
  [0, 1],
  [0, -1],
  [1, 1],
  [1, 1],
  [0, -1],
  [1, -1],
];
const BODY_UNIFORMS = [
  'u_matrix',
  'u_zoomRatio',
  'u_sizeRatio',
  'u_correctionRatio',
  'u_pixelRatio',
  'u_feather',
  'u_minEdgeThickness',
  'u_lengthToThicknessRatio',
] as const;

/** The normal of an edge scaled to its thickness (zero for an edge of length zero, as in sigma). */
function edgeNormal(source: NodeDisplayData, target: NodeDisplayData, thickness: number): [number, number] {
  const dx = target.x - source.x;
  const dy = target.y - source.y;
  const squared = dx * dx + dy * dy;
  if (!squared) return [0, 0];
  const inverse = 1 / Math.sqrt(squared);
  return [-dy * inverse * thickness, dx * inverse * thickness];
}

/**
 * Edges are not drawn while the camera moves: sigma's hideEdgesOnMove does the same, but also makes sigma
 * re-index the whole graph after every drag (a forced full refresh on mouseup), tens of ms for 2,000
 * nodes; this skips only the draw.
 */
abstract class StillEdgeProgram<
  Uniform extends string,
  N extends Attributes = Attributes,
  E extends Attributes = Attributes,
  G extends Attributes = Attributes,
> extends EdgeProgram<Uniform, N, E, G> {
  override render(params: RenderParams): void {
    if (!cameraMoving(this.renderer)) super.render(params);
  }
}

class EdgeBodyProgram<
  N extends Attributes = Attributes,
  E extends Attributes = Attributes,
  G extends Attributes = Attributes,
> extends StillEdgeProgram<(typeof BODY_UNIFORMS)[number], N, E, G> {
  getDefinition() {
    return {
      VERTICES: BODY_CORNERS.length,
      VERTEX_SHADER_SOURCE: BODY_VERTEX,
      FRAGMENT_SHADER_SOURCE: BODY_FRAGMENT,
      METHOD: TRIANGLES,
      UNIFORMS: BODY_UNIFORMS,
      ATTRIBUTES: [
        { name: 'a_position', size: 2, type: FLOAT },
        { name: 'a_normal', size: 2, type: FLOAT },
        { name: 'a_radius', size: 1, type: FLOAT },
        { name: 'a_color', ...COLOR },
        { name: 'a_id', ...COLOR },
      ],
    };
  }

  processVisibleItem(
    edgeIndex: number,
    startIndex: number,
    source: NodeDisplayData,
    target: NodeDisplayData,
    data: EdgeDisplayData,
  ): void {
    const array = this.array;
    const [n1, n2] = edgeNormal(source, target, data.size || 1);
    const radius = target.size || 1;
    const color = floatColor(data.color);
    let i = startIndex;
    for (const [end, side] of BODY_CORNERS) {
      const at = end ? target : source;
      array[i++] = at.x;
      array[i++] = at.y;
      array[i++] = n1 * side;
      array[i++] = n2 * side;
      array[i++] = end * side * radius;
      array[i++] = color;
      array[i++] = edgeIndex;
    }
  }

  setUniforms(
    params: RenderParams,
    { gl, uniformLocations: u }: ProgramInfo<(typeof BODY_UNIFORMS)[number]>,
  ): void {
    gl.uniformMatrix3fv(u.u_matrix, false, params.matrix);
    gl.uniform1f(u.u_zoomRatio, params.zoomRatio);
    gl.uniform1f(u.u_sizeRatio, params.sizeRatio);
    gl.uniform1f(u.u_correctionRatio, params.correctionRatio);
    gl.uniform1f(u.u_pixelRatio, params.pixelRatio);
    gl.uniform1f(u.u_feather, params.antiAliasingFeather);
    gl.uniform1f(u.u_minEdgeThickness, params.minEdgeThickness);
    gl.uniform1f(u.u_lengthToThicknessRatio, ARROW_LENGTH_TO_THICKNESS);
  }
}

/** The head of an arrow: a triangle against the target's border (sigma's EdgeArrowHeadProgram). */
const HEAD_VERTEX = /* glsl */ `
attribute vec2 a_position;
attribute vec2 a_normal;
attribute float a_radius;
attribute vec3 a_barycentric;
#ifdef PICKING_MODE
attribute vec4 a_id;
#else
attribute vec4 a_color;
#endif
uniform mat3 u_matrix;
uniform float u_sizeRatio;
uniform float u_correctionRatio;
uniform float u_minEdgeThickness;
uniform float u_lengthToThicknessRatio;
uniform float u_widenessToThicknessRatio;
varying vec4 v_color;
${BIAS}
void main() {
  float normalLength = length(a_normal);
  vec2 unitNormal = a_normal / normalLength;
  float pixelsThickness = max(normalLength / u_sizeRatio, u_minEdgeThickness);
  float webGLThickness = pixelsThickness * u_correctionRatio;
  float webGLNodeRadius = a_radius * 2.0 * u_correctionRatio / u_sizeRatio;
  float webGLArrowHeadLength = webGLThickness * u_lengthToThicknessRatio * 2.0;
  float webGLArrowHeadThickness = webGLThickness * u_widenessToThicknessRatio;
  float da = a_barycentric.x;
  float db = a_barycentric.y;
  float dc = a_barycentric.z;
  vec2 delta = vec2(
      da * (webGLNodeRadius * unitNormal.y)
    + db * ((webGLNodeRadius + webGLArrowHeadLength) * unitNormal.y + webGLArrowHeadThickness * unitNormal.x)
    + dc * ((webGLNodeRadius + webGLArrowHeadLength) * unitNormal.y - webGLArrowHeadThickness * unitNormal.x),
      da * (-webGLNodeRadius * unitNormal.x)
    + db * (-(webGLNodeRadius + webGLArrowHeadLength) * unitNormal.x + webGLArrowHeadThickness * unitNormal.y)
    + dc * (-(webGLNodeRadius + webGLArrowHeadLength) * unitNormal.x - webGLArrowHeadThickness * unitNormal.y)
  );
  gl_Position = vec4((u_matrix * vec3(a_position + delta, 1)).xy, 0, 1);
  #ifdef PICKING_MODE
  v_color = a_id;
  #else
  v_color = a_color;
  #endif
  v_color.a *= bias;
}`;

const HEAD_FRAGMENT = /* glsl */ `
precision mediump float;
varying vec4 v_color;
void main(void) {
  gl_FragColor = v_color;
}`;

const HEAD_CORNERS = [
  [1, 0, 0],
  [0, 1, 0],
  [0, 0, 1],
];
const HEAD_UNIFORMS = [
  'u_matrix',
  'u_sizeRatio',
  'u_correctionRatio',
  'u_minEdgeThickness',
  'u_lengthToThicknessRatio',
  'u_widenessToThicknessRatio',
] as const;

class EdgeHeadProgram<
  N extends Attributes = Attributes,
  E extends Attributes = Attributes,
  G extends Attributes = Attributes,
> extends StillEdgeProgram<(typeof HEAD_UNIFORMS)[number], N, E, G> {
  getDefinition() {
    return {
      VERTICES: HEAD_CORNERS.length,
      VERTEX_SHADER_SOURCE: HEAD_VERTEX,
      FRAGMENT_SHADER_SOURCE: HEAD_FRAGMENT,
      METHOD: TRIANGLES,
      UNIFORMS: HEAD_UNIFORMS,
      ATTRIBUTES: [
        { name: 'a_position', size: 2, type: FLOAT },
        { name: 'a_normal', size: 2, type: FLOAT },
        { name: 'a_radius', size: 1, type: FLOAT },
        { name: 'a_barycentric', size: 3, type: FLOAT },
        { name: 'a_color', ...COLOR },
        { name: 'a_id', ...COLOR },
      ],
    };
  }

  processVisibleItem(
    edgeIndex: number,
    startIndex: number,
    source: NodeDisplayData,
    target: NodeDisplayData,
    data: EdgeDisplayData,
  ): void {
    const array = this.array;
    const [n1, n2] = edgeNormal(source, target, data.size || 1);
    const radius = target.size || 1;
    const color = floatColor(data.color);
    let i = startIndex;
    for (const [a, b, c] of HEAD_CORNERS) {
      array[i++] = target.x;
      array[i++] = target.y;
      array[i++] = -n1;
      array[i++] = -n2;
      array[i++] = radius;
      array[i++] = a ?? 0;
      array[i++] = b ?? 0;
      array[i++] = c ?? 0;
      array[i++] = color;
      array[i++] = edgeIndex;
    }
  }

  setUniforms(
    params: RenderParams,
    { gl, uniformLocations: u }: ProgramInfo<(typeof HEAD_UNIFORMS)[number]>,
  ): void {
    gl.uniformMatrix3fv(u.u_matrix, false, params.matrix);
    gl.uniform1f(u.u_sizeRatio, params.sizeRatio);
    gl.uniform1f(u.u_correctionRatio, params.correctionRatio);
    gl.uniform1f(u.u_minEdgeThickness, params.minEdgeThickness);
    gl.uniform1f(u.u_lengthToThicknessRatio, ARROW_LENGTH_TO_THICKNESS);
    gl.uniform1f(u.u_widenessToThicknessRatio, ARROW_WIDENESS_TO_THICKNESS);
  }
}

/** A directed edge: body and head, two draw calls for the whole layer, none while the camera moves. */
export const EdgeArrowFlatProgram: EdgeProgramType = createEdgeCompoundProgram(
  [EdgeBodyProgram, EdgeHeadProgram],
  drawStraightEdgeLabel,
);

/** Draws no edge at all: the program for edges that are not to be drawn yet (see graph-canvas.tsx). */
export class EdgeNoneProgram<
  N extends Attributes = Attributes,
  E extends Attributes = Attributes,
  G extends Attributes = Attributes,
> extends AbstractEdgeProgram<N, E, G> {
  drawLabel: EdgeLabelDrawingFunction<N, E, G> | undefined = undefined;
  reallocate(): void {}
  process(): void {}
  render(): void {}
  kill(): void {}
}
