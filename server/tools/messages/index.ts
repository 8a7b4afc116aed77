import type { AnyTool } from '../define.ts';
import { messageAckTool } from './ack.ts';
import { inboxTool } from './inbox.ts';
import { messageSendTool } from './send.ts';
import { messageThreadsTool } from './threads.ts';

export const messageTools: AnyTool[] = [messageSendTool, inboxTool, messageAckTool, messageThreadsTool];
