// The audit viewer (apps/viewer, built into apps/viewer/dist) served by the engine at /ui.
import { Module } from '@nestjs/common';
import { UiAssets } from './ui-assets';
import { UiController } from './ui.controller';

@Module({
  controllers: [UiController],
  providers: [{ provide: UiAssets, useFactory: () => new UiAssets() }],
})
export class UiModule {}
