// The kit's base stylesheet first: this front end's own (styles.css) follows it and may override it.
import '../../kit/base.css';
import { mount } from '../../kit/mount.js';
import { App } from './app.js';
import './styles.css';

mount(App);
