import type { AnyTool } from '../define.ts';
import { filesReleaseTool } from './release.ts';
import { filesReservationsTool } from './reservations.ts';
import { filesReserveTool } from './reserve.ts';

export const fileTools: AnyTool[] = [filesReserveTool, filesReleaseTool, filesReservationsTool];
