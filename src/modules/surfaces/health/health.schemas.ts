import { Type } from 'typebox';

export const HealthStatus = Type.Object({ status: Type.Literal('ok') }, { title: 'HealthStatus' });
